/**
 * Bad configs and repositories: unparsable, invalid, missing files, unreadable files, symlink loops, a
 * model folder appearing or vanishing between polls (with requests in flight). The affected model is
 * UNAVAILABLE with a reason; the good models keep serving throughout.
 *
 * Tests run as root here, and root ignores chmod 000, so "unreadable" is made with things root cannot
 * read either: a directory where config.pbtxt is expected, a symlink loop, a dangling symlink.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_REPO, startServer, tempRepository, type Running } from './harness.ts';
import { validMlpRequest } from './corpus.ts';

let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: Running;

const textConfig = () => readFile(join(DEMO_REPO, 'text_encoder/config.pbtxt'), 'utf8');

/** A broken copy of text_encoder under another name: `edit` breaks it one way. */
async function brokenModel(name: string, edit: (dir: string, config: string) => Promise<void>): Promise<void> {
  const dir = join(repo.dir, name);
  await cp(join(DEMO_REPO, 'text_encoder'), dir, { recursive: true });
  const config = (await textConfig()).replace('name: "text_encoder"', `name: "${name}"`);
  await writeFile(join(dir, 'config.pbtxt'), config);
  await edit(dir, config);
}

const BROKEN: Record<string, { edit: (dir: string, config: string) => Promise<void>; reason: RegExp }> = {
  bad_unparsable: { edit: (d) => writeFile(join(d, 'config.pbtxt'), 'name: "bad_unparsable"\nmax_batch_size: [[[\n'), reason: /line \d+/ },
  bad_invalid: {
    edit: (d, c) => writeFile(join(d, 'config.pbtxt'), c.replace('max_queue_delay_microseconds: 500', 'preferred_batch_size: [ 64 ]\n  max_queue_delay_microseconds: 500')),
    reason: /preferred/i,
  },
  bad_name_mismatch: { edit: (d, c) => writeFile(join(d, 'config.pbtxt'), c.replace('name: "bad_name_mismatch"', 'name: "someone_else"')), reason: /someone_else/ },
  bad_missing_model_file: { edit: (d) => rm(join(d, '1/model.onnx')), reason: /model\.onnx|unable to find/ },
  bad_no_versions: { edit: (d) => rm(join(d, '1'), { recursive: true }), reason: /version/ },
  bad_corrupt_onnx: { edit: (d) => writeFile(join(d, '1/model.onnx'), Buffer.from('this is not a protobuf')), reason: /.+/ },
  bad_truncated_onnx: {
    edit: async (d) => {
      const bytes = await readFile(join(d, '1/model.onnx'));
      await writeFile(join(d, '1/model.onnx'), bytes.subarray(0, bytes.byteLength >> 1));
    },
    reason: /.+/,
  },
  bad_config_is_dir: {
    edit: async (d) => {
      await rm(join(d, 'config.pbtxt'));
      await mkdir(join(d, 'config.pbtxt'));
    },
    reason: /config\.pbtxt|EISDIR|directory/,
  },
  bad_config_loop: {
    edit: async (d) => {
      await rm(join(d, 'config.pbtxt'));
      await symlink('config.pbtxt', join(d, 'config.pbtxt'));
    },
    reason: /ELOOP|symbolic links|config\.pbtxt/,
  },
  bad_model_file_loop: {
    edit: async (d) => {
      await rm(join(d, '1/model.onnx'));
      await symlink('model.onnx', join(d, '1/model.onnx'));
    },
    reason: /model\.onnx|ELOOP|unable to find/,
  },
  bad_config_dangling: {
    edit: async (d) => {
      await rm(join(d, 'config.pbtxt'));
      await symlink('/nonexistent/inferscope/config.pbtxt', join(d, 'config.pbtxt'));
    },
    reason: /ENOENT|config\.pbtxt/,
  },
  bad_unknown_backend: { edit: (d, c) => writeFile(join(d, 'config.pbtxt'), c.replace('backend: "onnxruntime"', 'backend: "tensorrt"')), reason: /tensorrt|model\.plan/ },
  bad_io_mismatch: { edit: (d, c) => writeFile(join(d, 'config.pbtxt'), c.replace('dims: [ 64 ]', 'dims: [ 65 ]')), reason: /65|64|shape|dims/ },
  bad_chmod_000: {
    // Root reads it anyway: when running as root this one must simply load (and the test says so).
    edit: (d) => chmod(join(d, 'config.pbtxt'), 0o000),
    reason: /EACCES|permission/,
  },
};

async function inferText(model = 'text_encoder'): Promise<number> {
  const res = await server.app.inject({
    method: 'POST',
    url: `/v2/models/${model}/infer`,
    payload: { inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 3], data: [1, 2, 3] }] },
  });
  return res.statusCode;
}
async function inferMlp(): Promise<number> {
  return (await server.app.inject({ method: 'POST', url: '/v2/models/mlp_classifier/infer', payload: validMlpRequest() })).statusCode;
}

before(async () => {
  repo = await tempRepository(['mlp_classifier', 'text_encoder']);
  for (const [name, b] of Object.entries(BROKEN)) await brokenModel(name, b.edit);
  // A repository-level symlink loop and a stray file: neither is a model folder.
  await symlink('loop_a', join(repo.dir, 'loop_b'));
  await symlink('loop_b', join(repo.dir, 'loop_a'));
  await writeFile(join(repo.dir, 'README.txt'), 'not a model');
  server = await startServer({ repositories: [repo.dir], controlMode: 'poll' });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

test('each broken model is UNAVAILABLE with a reason; the good ones serve', { timeout: 180_000 }, async () => {
  const rows = server.manager.list();
  const root = process.getuid?.() === 0;
  const summary: string[] = [];
  for (const [name, b] of Object.entries(BROKEN)) {
    const row = rows.find((r) => r.name === name);
    assert.ok(row, `${name} is listed`);
    if (name === 'bad_chmod_000' && root) {
      assert.equal(row.state, 'READY', 'root reads a chmod 000 file: the model loads');
      continue;
    }
    assert.equal(row.state, 'UNAVAILABLE', `${name} is ${row.state}`);
    assert.match(row.reason ?? '', b.reason, `${name}: reason '${row.reason}'`);
    summary.push(`${name}: ${row.reason}`);
    assert.equal(await inferText(name) >= 400, true, `${name} refuses requests`);
  }
  assert.ok(!rows.some((r) => r.name === 'README.txt'), 'a stray file is not a model');
  for (const loop of ['loop_a', 'loop_b']) {
    const row = rows.find((r) => r.name === loop);
    assert.equal(row?.state, 'UNAVAILABLE', `symlink loop ${loop} is reported, not skipped`);
    assert.match(row?.reason ?? '', /ELOOP|symbolic links/);
    summary.push(`${loop}: ${row?.reason}`);
  }
  assert.equal(rows.find((r) => r.name === 'mlp_classifier')?.state, 'READY');
  assert.equal(await inferMlp(), 200);
  assert.equal(await inferText(), 200);
  console.log(`bad-repository: ${summary.length} broken models UNAVAILABLE with reasons:\n  ${summary.join('\n  ')}`);
});

test('a model folder appearing and vanishing between polls; in-flight requests all answered; others serve', { timeout: 180_000 }, async () => {
  // appears
  await cp(join(DEMO_REPO, 'cnn_classifier'), join(repo.dir, 'cnn_classifier'), { recursive: true });
  const diff = await server.manager.poll();
  assert.deepEqual(diff.added, ['cnn_classifier']);
  assert.equal(server.manager.get('cnn_classifier')?.state, 'READY');

  // vanishes while requests are in flight
  const image = { inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 3, 64, 64], data: new Array(3 * 64 * 64).fill(0.5) }] };
  const inflight = Array.from({ length: 40 }, () => server.app.inject({ method: 'POST', url: '/v2/models/cnn_classifier/infer', payload: image }));
  const mlpDuring = Array.from({ length: 20 }, () => inferMlp());
  await rm(join(repo.dir, 'cnn_classifier'), { recursive: true, force: true });
  const diff2 = await server.manager.poll();
  assert.deepEqual(diff2.removed, ['cnn_classifier']);
  const answers = await Promise.all(inflight);
  const statuses = answers.map((a) => a.statusCode);
  assert.equal(answers.length, 40, 'every request answered');
  assert.ok(statuses.every((s) => s === 200 || s === 400 || s === 404 || s === 503), `statuses ${statuses}`);
  for (const a of answers) if (a.statusCode !== 200) assert.match(a.json().error, /.+/);
  assert.deepEqual(await Promise.all(mlpDuring), new Array(20).fill(200), 'the other model kept serving');
  assert.equal(server.manager.get('cnn_classifier'), undefined);
  assert.equal(await inferText(), 200);

  // a broken model fixed on disk becomes READY at the next poll, without touching the others
  const mlpBefore = server.manager.list().find((r) => r.name === 'mlp_classifier');
  await writeFile(join(repo.dir, 'bad_unparsable/config.pbtxt'), (await textConfig()).replace('name: "text_encoder"', 'name: "bad_unparsable"'));
  const diff3 = await server.manager.poll();
  assert.deepEqual(diff3.modified, ['bad_unparsable']);
  assert.equal(server.manager.get('bad_unparsable')?.state, 'READY');
  assert.equal(await inferText('bad_unparsable'), 200);
  assert.deepEqual(server.manager.list().find((r) => r.name === 'mlp_classifier')?.instances.length, mlpBefore?.instances.length);
  const ok = statuses.filter((s) => s === 200).length;
  console.log(`bad-repository (poll): cnn appeared+vanished with 40 in flight: answered 40 (200: ${ok}, refused: ${40 - ok}), lost 0; mlp 20/20 served during`);
});

test('symlinked model folders and model files are followed, like copies', { timeout: 120_000 }, async () => {
  // A model folder that is a link, and a model whose model.onnx is a link to the demo weights.
  await symlink(join(DEMO_REPO, 'cnn_classifier'), join(repo.dir, 'cnn_classifier'));
  const shared = join(repo.dir, 'text_shared');
  await cp(join(DEMO_REPO, 'text_encoder'), shared, { recursive: true });
  await writeFile(join(shared, 'config.pbtxt'), (await textConfig()).replace('name: "text_encoder"', 'name: "text_shared"'));
  await rm(join(shared, '1/model.onnx'));
  await symlink(join(DEMO_REPO, 'text_encoder/1/model.onnx'), join(shared, '1/model.onnx'));
  const diff = await server.manager.poll();
  assert.deepEqual(diff.added.sort(), ['cnn_classifier', 'text_shared']);
  assert.equal(server.manager.get('cnn_classifier')?.state, 'READY', server.manager.get('cnn_classifier')?.reason);
  assert.equal(server.manager.get('text_shared')?.state, 'READY', server.manager.get('text_shared')?.reason);
  assert.equal(await inferText('text_shared'), 200);
  await rm(join(repo.dir, 'cnn_classifier'));
  await rm(shared, { recursive: true });
  await server.manager.poll();
});
