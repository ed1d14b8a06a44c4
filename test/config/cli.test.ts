// `inferscope config check` / `config print` on temporary folders: what a PATH is, the folder rules
// (versions, model files), the one-line output, and the exit status through the real CLI.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPath } from '../../apps/server/src/config-check/check-path';
import { hostGpuCount } from '../../apps/server/src/config-check/gpu-count';
import { parseConfigArgs } from '../../apps/server/src/config-check/args';
import checkCommand, { renderCheckLine } from '../../apps/server/src/cli/commands/config-check';
import printCommand from '../../apps/server/src/cli/commands/config-print';
import type { Command } from '../../apps/server/src/cli/command';
import { normalizeModelConfig, parseModelConfig } from '@inferscope/core/config';

const root = mkdtempSync(join(tmpdir(), 'inferscope-config-'));
after(() => rmSync(root, { recursive: true, force: true }));

const GOOD = `platform: "onnxruntime_onnx"
max_batch_size: 4
input { name: "IN" data_type: TYPE_FP32 dims: [ 2 ] }
output { name: "OUT" data_type: TYPE_FP32 dims: [ 2 ] }
`;

/** Creates <repo>/<model>/config.pbtxt and version folders holding the given files. */
function model(repo: string, name: string, config: string | undefined, versions: Record<string, string[]>): string {
  const dir = join(root, repo, name);
  mkdirSync(dir, { recursive: true });
  if (config !== undefined) writeFileSync(join(dir, 'config.pbtxt'), config);
  for (const [v, files] of Object.entries(versions)) {
    mkdirSync(join(dir, v), { recursive: true });
    for (const f of files) writeFileSync(join(dir, v, f), 'x');
  }
  return dir;
}

test('a model folder with a version and its model file is ok', () => {
  const dir = model('r1', 'good', GOOD, { '1': ['model.onnx'] });
  const [c] = checkPath(dir, { gpuCount: 0 });
  assert.equal(c!.kind, 'model');
  assert.equal(c!.error, undefined);
  assert.equal(renderCheckLine(c!), `${dir}: ok`);
});

test('a model folder without versions fails with Triton\'s message', () => {
  const dir = model('r1', 'noversion', GOOD, {});
  const [c] = checkPath(dir, { gpuCount: 0 });
  assert.equal(c!.error?.message, "at least one version must be available under the version policy of model 'noversion'");
});

test('a served version without its model file fails; versions outside the policy are not checked', () => {
  const dir = model('r1', 'nofile', GOOD, { '1': [], '2': ['other.bin'] });
  const [c] = checkPath(dir, { gpuCount: 0 });
  assert.match(c!.error?.message ?? '', /unable to find '.*\/nofile\/2\/model.onnx' for model instance 'nofile'/);
  assert.equal(c!.issues.length, 1); // version 1 is not served under latest 1
});

test('odd version folder names are warnings, not errors', () => {
  const dir = model('r1', 'odd', GOOD, { '1': ['model.onnx'], '01': [], notes: [] });
  const [c] = checkPath(dir, { gpuCount: 0 });
  assert.equal(c!.error, undefined);
  assert.equal(c!.warnings.length, 2);
});

test('the model file decides the backend when there is no config.pbtxt', () => {
  const dir = model('r1', 'autocomplete', undefined, { '1': ['model.onnx'] });
  const [c] = checkPath(dir, { gpuCount: 0 });
  assert.equal(c!.error, undefined);
  assert.equal(c!.config?.platform, 'onnxruntime_onnx');
});

test('a config.pbtxt alone gets config-level checks, named after its folder, with line and column', () => {
  const dir = model('r2', 'named', GOOD.replace('dims: [ 2 ] }\noutput', 'dims: [ 0 ] }\noutput'), {});
  const [c] = checkPath(join(dir, 'config.pbtxt'), { gpuCount: 0 });
  assert.equal(c!.kind, 'config');
  assert.match(renderCheckLine(c!), /config\.pbtxt: error: model input 'IN' dimension must be integer >= 1.* \(line 3, column 41\)$/);
});

test('a repository expands to one check per model folder; a missing path is an error', () => {
  model('r3', 'a', GOOD, { '1': ['model.onnx'] });
  model('r3', 'b', 'name: "other"\n' + GOOD, { '1': ['model.onnx'] });
  const checks = checkPath(join(root, 'r3'), { gpuCount: 0 });
  assert.deepEqual(checks.map((c) => c.path.split('/').pop()), ['a', 'b']);
  assert.equal(checks[0]!.error, undefined);
  assert.match(checks[1]!.error?.message ?? '', /unexpected directory name 'b' for model 'other'/);
  assert.match(checkPath(join(root, 'nope'), { gpuCount: 0 })[0]!.error?.message ?? '', /no such file or directory/);
});

test('an ensemble is checked against the step models beside it', () => {
  model('r5', 'add', GOOD, { '1': ['model.onnx'] });
  const ens = (out: string) => `platform: "ensemble" max_batch_size: 4
input { name: "X" data_type: TYPE_FP32 dims: [ 2 ] }
output { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] }
ensemble_scheduling { step { model_name: "add" input_map { key: "IN" value: "X" } output_map { key: "${out}" value: "Y" } } }
`;
  const good = model('r5', 'pipeline', ens('OUT'), { '1': [] });
  assert.equal(checkPath(good, { gpuCount: 0 })[0]!.error, undefined);
  const bad = model('r5', 'broken', ens('NOPE'), { '1': [] });
  assert.match(checkPath(bad, { gpuCount: 0 })[0]!.error?.message ?? '', /ensemble tensor Y is mapped from non-existing output NOPE in model add/);
});

test('options: --json, --gpus N and --gpus=N, unknown options refused', () => {
  assert.deepEqual(parseConfigArgs(['--json', '--gpus', '2', 'a', 'b']), { json: true, gpuCount: 2, paths: ['a', 'b'] });
  assert.deepEqual(parseConfigArgs(['--gpus=0', 'a']), { json: false, gpuCount: 0, paths: ['a'] });
  assert.ok('error' in parseConfigArgs(['--gpus', 'two']));
  assert.ok('error' in parseConfigArgs(['--gpu', '1']));
  assert.equal(parseConfigArgs(['a']).hasOwnProperty('error'), false);
});

test('host GPU count is the number of /dev/nvidiaN devices', () => {
  const dev = join(root, 'dev');
  mkdirSync(dev);
  for (const f of ['nvidia0', 'nvidia1', 'nvidiactl', 'nvidia-uvm', 'null']) writeFileSync(join(dev, f), '');
  assert.equal(hostGpuCount(dev), 2);
  assert.equal(hostGpuCount(join(root, 'no-such-dev')), 0);
});

test('the CLI prints one line per path and exits 0 only when all are valid', () => {
  const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
  const good = model('r4', 'good', GOOD, { '1': ['model.onnx'] });
  const bad = model('r4', 'bad', GOOD.replace('max_batch_size: 4', 'max_batch_size: 4\ndynamic_batching { preferred_batch_size: [ 8 ] }'), { '1': ['model.onnx'] });
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [join(repoRoot, 'apps/server/bin/inferscope.mjs'), 'config', 'check', '--gpus', '0', ...args], { encoding: 'utf8' });

  const ok = run(good);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, `${good}: ok\n`);

  const mixed = run(good, bad);
  assert.equal(mixed.status, 1);
  const lines = mixed.stdout.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /bad: error: dynamic batching preferred size must be <= max batch size for bad; hint: .*\(line 3, column 20\)$/);

});

/** Runs a command in-process, capturing what it prints. */
async function capture(argv: string[], command: Command = checkCommand): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const write = process.stdout.write;
  console.log = (...a: unknown[]) => void out.push(a.join(' ') + '\n');
  console.error = (...a: unknown[]) => void err.push(a.join(' ') + '\n');
  process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    const status = await command.run(argv);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    console.log = log;
    console.error = error;
    process.stdout.write = write;
  }
}

test('--json lists every issue; no PATH or a bad option is a usage error (exit 2)', async () => {
  const bad = model('r6', 'bad', GOOD.replace('dims: [ 2 ] }\noutput', 'dims: [ 0 ] }\noutput').replace('max_batch_size: 4', 'max_batch_size: -4'), { '1': ['model.onnx'] });
  const json = await capture(['--json', '--gpus', '0', bad]);
  assert.equal(json.status, 1);
  const parsed = JSON.parse(json.stdout) as { ok: boolean; error: { message: string }; issues: { message: string; line?: number }[] }[];
  assert.equal(parsed[0]!.ok, false);
  assert.deepEqual(parsed[0]!.issues.map((i) => i.line), [2, 3]);
  assert.match(parsed[0]!.error.message, /'max_batch_size' must be non-negative/);
  assert.equal((await capture([])).status, 2);
  assert.equal((await capture(['--verbose', bad])).status, 2);
});

test('config print shows the normalised config as pbtxt or as Triton JSON; an invalid one exits 1', async () => {
  const dir = model('r7', 'printed', GOOD, { '1': ['model.onnx'] });
  const text = await capture(['--gpus', '0', dir], printCommand);
  assert.equal(text.status, 0, text.stderr);
  assert.deepEqual(parseModelConfig(text.stdout), normalizeModelConfig(parseModelConfig(GOOD), { modelName: 'printed', gpuCount: 0 }));
  const json = await capture(['--json', '--gpus', '0', dir], printCommand);
  const parsed = JSON.parse(json.stdout) as { name: string; instance_group: { kind: string; count: number }[]; runtime: string };
  assert.equal(parsed.name, 'printed');
  assert.deepEqual([parsed.instance_group[0]!.kind, parsed.instance_group[0]!.count], ['KIND_CPU', 2]);
  assert.equal(parsed.runtime, '');
  const bad = model('r7', 'bad', GOOD.replace('max_batch_size: 4', 'max_batch_size: -4'), { '1': ['model.onnx'] });
  const refused = await capture(['--gpus', '0', bad], printCommand);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /'max_batch_size' must be non-negative value for bad/);
  assert.equal((await capture([root], printCommand)).status, 2);
});
