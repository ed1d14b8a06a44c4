// Repository load with Triton's override parameters, on the real server (explicit mode, a temp copy of the
// demo MLP): `config` (JSON) replaces config.pbtxt for the load; `file:<path>` contents (base64) make a model
// from a private temporary folder that holds only those files, never anything outside it; bad paths are
// refused before anything is written; the folder goes away on unload. The same over gRPC (bytes).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, tempRepository, DEMO_REPO, type TestServer } from '../support/server';
import { grpcClient, rawFp32 } from '../grpc/client';

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };
before(async () => {
  repo = await tempRepository(['mlp_classifier']);
  server = await startTestServer({ modelRepositories: [repo.dir], modelControlMode: 'explicit', loadModels: ['*'], grpcPort: 0, live: false });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

const http = (path: string, init?: RequestInit) => fetch(server.url + path, init);
const load = (model: string, parameters: Record<string, unknown>) =>
  http(`/v2/repository/models/${model}/load`, { method: 'POST', body: JSON.stringify({ parameters }), headers: { 'content-type': 'application/json' } });
const privateFolders = async () => (await readdir(tmpdir())).filter((n) => n.startsWith('inferscope-load-'));
const infer = (model: string, batch: number) =>
  http(`/v2/models/${model}/infer`, { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [batch, 784], data: new Array(batch * 784).fill(0.1) }] }) });

test('parameters.config replaces the config for this load', async () => {
  const config = await (await http('/v2/models/mlp_classifier/versions/1/config')).json();
  const r = await load('mlp_classifier', { config: JSON.stringify({ ...config, max_batch_size: 4, dynamic_batching: { preferred_batch_size: [2, 4] }, model_warmup: [] }) });
  assert.equal(r.status, 200, await r.clone().text());
  const now = await (await http('/v2/models/mlp_classifier/versions/1/config')).json();
  assert.equal(now.max_batch_size, 4);
  assert.deepEqual(now.dynamic_batching.preferred_batch_size, [2, 4]);
  assert.equal((await infer('mlp_classifier', 4)).status, 200);
  const tooBig = await infer('mlp_classifier', 8);
  assert.equal(tooBig.status, 400);
  assert.match((await tooBig.json()).error, /batch-size must be <= 4/);
  // A broken override is refused with the parser's words and the server keeps its models.
  const bad = await load('mlp_classifier', { config: '{"max_batch_size": ' });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /failed to parse the model config override/);
  // A plain load goes back to the file on disk.
  assert.equal((await load('mlp_classifier', {})).status, 200);
  assert.equal((await (await http('/v2/models/mlp_classifier/versions/1/config')).json()).max_batch_size, config.max_batch_size);
});

test('file: contents load a model from a private folder, removed on unload', async () => {
  const onnx = await readFile(join(DEMO_REPO, 'mlp_classifier/1/model.onnx'));
  const config = { backend: 'onnxruntime', max_batch_size: 8, input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }], output: [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [10] }] };
  const before = await privateFolders();
  const r = await load('from_files', { config: JSON.stringify(config), 'file:1/model.onnx': onnx.toString('base64') });
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal((await http('/v2/models/from_files/ready')).status, 200);
  assert.equal((await infer('from_files', 2)).status, 200);
  const made = (await privateFolders()).filter((n) => !before.includes(n));
  assert.equal(made.length, 1, 'one private folder');
  const folder = join(tmpdir(), made[0], 'from_files');
  assert.deepEqual((await readdir(folder)).sort(), ['1', 'config.pbtxt']);
  assert.deepEqual(await readdir(join(folder, '1')), ['model.onnx']);
  assert.equal((await http('/v2/repository/models/from_files/unload', { method: 'POST' })).status, 200);
  assert.deepEqual((await privateFolders()).filter((n) => !before.includes(n)), [], 'removed on unload');
  assert.equal((await readdir(repo.dir)).includes('from_files'), false, 'nothing written to the repository');
});

test('file: paths that could leave the folder, files without a config, non-base64 contents: refused, nothing written', async () => {
  const before = await privateFolders();
  const config = JSON.stringify({ backend: 'onnxruntime', max_batch_size: 1 });
  for (const path of ['../x', '1/../../x', '/etc/passwd', '1\\..\\x', '', '1//model.onnx', '.', 'a/./b', '1/model.onnx\u0000']) {
    const r = await load('evil', { config, [`file:${path}`]: 'AAAA' });
    assert.equal(r.status, 400, `file:${path} -> ${r.status}`);
    assert.match((await r.json()).error, /invalid file override path/);
  }
  const noConfig = await load('evil', { 'file:1/model.onnx': 'AAAA' });
  assert.equal(noConfig.status, 400);
  assert.match((await noConfig.json()).error, /need the model's 'config' parameter/);
  const notBase64 = await load('evil', { config, 'file:1/model.onnx': '***' });
  assert.equal(notBase64.status, 400);
  assert.deepEqual((await privateFolders()).filter((n) => !before.includes(n)), [], 'no folder left behind');
  assert.equal((await http('/v2/models/evil/ready')).status, 404);
});

test('gRPC RepositoryModelLoad takes the same parameters (bytes for files)', async () => {
  const client = grpcClient(server.grpcAddress!);
  try {
    const onnx = await readFile(join(DEMO_REPO, 'mlp_classifier/1/model.onnx'));
    const config = { backend: 'onnxruntime', max_batch_size: 2, input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }], output: [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [10] }] };
    await client.call('RepositoryModelLoad', { model_name: 'via_grpc', parameters: { config: { string_param: JSON.stringify(config) }, 'file:1/model.onnx': { bytes_param: onnx } } });
    const res = await client.call('ModelInfer', { model_name: 'via_grpc', inputs: [{ name: 'input', datatype: 'FP32', shape: [2, 784] }], raw_input_contents: [rawFp32(new Float32Array(2 * 784))] });
    assert.deepEqual(res.outputs[0].shape.map(Number), [2, 10]);
    await assert.rejects(client.call('RepositoryModelLoad', { model_name: 'via_grpc', parameters: { config: { string_param: JSON.stringify(config) }, 'file:../x': { bytes_param: onnx } } }), /invalid file override path/);
    await client.call('RepositoryModelUnload', { model_name: 'via_grpc' });
  } finally {
    client.close();
  }
});

// Triton parses `config` into the ModelConfig protobuf with unknown fields refused (JsonToModelConfig):
// a misspelt field at any depth is an error, not a silently different model. Same words over both protocols.
const strictCases: Array<[string, Record<string, unknown>, RegExp]> = [
  ['root', { max_batch_sise: 4 }, /Invalid config override: max_batch_sise: Cannot find field\./],
  ['dynamic_batching', { dynamic_batching: { max_queue_delay_micros: 100 } }, /Invalid config override: \(dynamic_batching\) max_queue_delay_micros: Cannot find field\./],
  ['instance_group[0]', { instance_group: [{ count: 1, knid: 'KIND_CPU' }] }, /\(instance_group\[0\]\) knid: Cannot find field\./],
  ['input[0].reshape', { input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784], reshape: { shap: [784] } }] }, /\(input\[0\]\.reshape\) shap: Cannot find field\./],
  ['string for a number', { max_batch_size: 'four' }, /\(max_batch_size\): invalid value "four" for type TYPE_INT32/],
  ['fraction for an integer', { dynamic_batching: { max_queue_delay_microseconds: 1.5 } }, /invalid value 1\.5 for type TYPE_UINT64/],
  ['number for a string', { backend: 7 }, /\(backend\): invalid value 7 for type TYPE_STRING/],
  ['string for a bool', { dynamic_batching: { preserve_ordering: 'yes' } }, /invalid value "yes" for type TYPE_BOOL/],
  ['object for a list', { instance_group: { count: 1 } }, /\(instance_group\): invalid value a JSON object for type repeated field/],
  ['unknown enum name', { instance_group: [{ kind: 'KIND_TPU' }] }, /invalid value "KIND_TPU" for type inference\.ModelInstanceGroup\.Kind/],
];

test('parameters.config: unknown fields at any level and wrong JSON types are refused with 400, the model keeps its config', async () => {
  const config = await (await http('/v2/models/mlp_classifier/versions/1/config')).json();
  for (const [what, patch, message] of strictCases) {
    const r = await load('mlp_classifier', { config: JSON.stringify({ ...config, model_warmup: [], ...patch }) });
    assert.equal(r.status, 400, `${what}: ${r.status}`);
    assert.match((await r.json()).error, message, what);
  }
  const misspelt = await load('mlp_classifier', { confg: JSON.stringify(config) });
  assert.equal(misspelt.status, 400);
  assert.match((await misspelt.json()).error, /Unrecognized load parameter 'confg' with type 'STRING'/);
  const now = await (await http('/v2/models/mlp_classifier/versions/1/config')).json();
  assert.equal(now.max_batch_size, config.max_batch_size);
  assert.equal((await http('/v2/models/mlp_classifier/ready')).status, 200);
});

test('gRPC RepositoryModelLoad refuses the same configs with INVALID_ARGUMENT and the same words', async () => {
  const client = grpcClient(server.grpcAddress!);
  try {
    const config = await (await http('/v2/models/mlp_classifier/versions/1/config')).json();
    for (const [what, patch, message] of strictCases) {
      await assert.rejects(
        client.call('RepositoryModelLoad', { model_name: 'mlp_classifier', parameters: { config: { string_param: JSON.stringify({ ...config, model_warmup: [], ...patch }) } } }),
        (err: { code: number; details: string }) => err.code === 3 && message.test(err.details),
        what,
      );
    }
    await assert.rejects(client.call('RepositoryModelLoad', { model_name: 'mlp_classifier', parameters: { confg: { int64_param: 3 } } }),
      (err: { code: number; details: string }) => err.code === 3 && /Unrecognized load parameter 'confg' with type 'INT'/.test(err.details));
  } finally {
    client.close();
  }
});
