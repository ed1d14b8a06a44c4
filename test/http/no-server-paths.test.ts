/**
 * No answer names a server path (issue 55): the inputs known to make the filesystem or a loader speak
 * (an oversized `file:` name, traversal and absolute names, a config that is a symlink loop or a folder,
 * missing models) are sent over HTTP, and no response body, error or index reason, holds the
 * temporary folder, the repository or the working directory, in any spelling. Plus the redaction itself.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, realpath, symlink } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app.ts';
import { fakeRuntime, makeRepository, cfg } from '../repository/fakes.ts';
import { redactPaths, registerServerPath } from '../../apps/server/src/infer/redact-paths.ts';

const MODEL = cfg({
  platform: 'onnxruntime_onnx', max_batch_size: 8,
  input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [4] }], output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [4] }],
});

const apps: InferScopeApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

test('no response to a path-revealing input names a server path', async () => {
  const repo = await makeRepository({ 'm/config.pbtxt': MODEL, 'm/1/model.onnx': 'x', 'dir_config/1/model.onnx': 'x' });
  await mkdir(join(repo, 'dir_config', 'config.pbtxt')); // a folder where the config file should be
  await mkdir(join(repo, 'loop', '1'), { recursive: true });
  await symlink(join(repo, 'loop', 'config.pbtxt'), join(repo, 'loop', 'config.pbtxt')); // ELOOP, with its path
  const s = await buildApp({ modelRepositories: [repo], modelControlMode: 'explicit', loadModels: [], runtime: fakeRuntime(), live: false, metricsPort: null, webDist: join(repo, 'no-dist') });
  apps.push(s);
  const forbidden = [...new Set([tmpdir(), await realpath(tmpdir()), repo, await realpath(repo), process.cwd(), homedir()])].filter((p) => p !== '/');

  const bodies: string[] = [];
  const send = async (url: string, payload?: unknown) => {
    const r = await s.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: payload === undefined ? undefined : JSON.stringify(payload) });
    bodies.push(`${url} ${r.statusCode} ${r.body}`);
    return r;
  };
  const load = (model: string, parameters?: Record<string, unknown>) => send(`/v2/repository/models/${model}/load`, parameters ? { parameters } : {});

  // Triton's qa/L0_http test_load_oversized_file_parameter: a name past NAME_MAX
  const long = await load('m', { ['file:' + 'A'.repeat(256)]: 'YQ==', config: '{}' });
  assert.equal(long.statusCode, 500);
  assert.match(long.json().error, /^failed to load 'm', failed to poll from model repository: ENAMETOOLONG: name too long$/);
  assert.equal((await s.app.inject({ url: '/v2/health/ready' })).statusCode, 200, 'the server stays up');
  await load('m', { ['file:1/' + 'B'.repeat(300)]: 'YQ==', config: '{}' });
  for (const key of ['file:../x', 'file:/etc/passwd', 'file:1//model.onnx', 'file:', `file:${repo}/m/1/model.onnx`]) await load('m', { [key]: 'YQ==', config: '{}' });
  await load('m', { 'file:1/model.onnx': '!!not base64!!', config: '{}' });
  await load('m', { config: '{"backend": 7}' });
  await load('dir_config');
  await load('loop');
  await load('missing');
  await load('..%2F..%2Fetc');
  await load(encodeURIComponent(repo));
  await send('/v2/repository/models/m/unload', { parameters: { unload_dependents: 'yes' } });
  await send('/v2/repository/index', {});

  assert.ok(bodies.length >= 15);
  for (const body of bodies) {
    for (const p of forbidden) assert.ok(!body.includes(p), `a server path (${p}) in: ${body.slice(0, 400)}`);
  }
  // the failures are still explained
  assert.match(bodies.find((b) => b.includes('/dir_config/load'))!, /"error":"[^"]+"/);
  assert.match(bodies.find((b) => b.includes('/loop/load'))!, /"error":"[^"]+"/);
});

test('redactPaths drops fs error trailers and labels known roots, only at component boundaries', () => {
  registerServerPath('/srv/inferscope-test-models', '<repository>');
  assert.equal(redactPaths("ENAMETOOLONG: name too long, open '/tmp/inferscope-load-1-abcdef/m/1/AAAA'"), 'ENAMETOOLONG: name too long');
  assert.equal(redactPaths("EXDEV: cross-device link not permitted, rename '/a/b' -> '/c/d'"), 'EXDEV: cross-device link not permitted');
  assert.equal(redactPaths("config.pbtxt of 'm' in /srv/inferscope-test-models/m cannot be read"), "config.pbtxt of 'm' in <repository>/m cannot be read");
  assert.equal(redactPaths('/srv/inferscope-test-models2/m'), '/srv/inferscope-test-models2/m', 'another folder with the same prefix is not the root');
  // a folder under the temporary one that is not the working folder (a checkout may itself live in /tmp)
  assert.equal(redactPaths(`model at ${join(tmpdir(), 'inferscope-redact-test', 'model.onnx')}: bad`), 'model at <tmp>/inferscope-redact-test/model.onnx: bad');
  // what the client sent stays: a relative path in an fs trailer, a URL path
  assert.equal(redactPaths("ENOENT: no such file or directory, open 'm/1/model.onnx'"), "ENOENT: no such file or directory, open 'm/1/model.onnx'");
  assert.equal(redactPaths('Not Found: /v2/models/x'), 'Not Found: /v2/models/x');
});
