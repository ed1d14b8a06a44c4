// The python backend through the real server: a Triton-style add_sub model (numpy only) answers
// correctly, alone and batched; TYPE_STRING tensors go through as numpy object arrays; and every way a
// model.py can go wrong (initialize or execute raising, wrong response count, names, dtypes, shapes, an
// error response, a syntax error, a load timeout, a missing interpreter) gives a clear error while the
// other models keep serving.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, DEMO_REPO, type TestServer } from '../support/server.ts';
import { ADD_SUB_PY, NO_NUMPY, addSubConfig, inferJson, modelIndex, tempRepo, type TempRepo } from './stub-fixtures.ts';

const ONE = [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [0.5, 0.5, 0.5, 0.5] },
];

/** add_sub with its execute() replaced by `body` (indented python, `requests` in scope). */
function variant(body: string): string {
  return ADD_SUB_PY.replace(/    def execute\(self, requests\):[\s\S]*?return responses\n/, `    def execute(self, requests):\n${body}\n`);
}

const STRINGS_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            text = pb_utils.get_input_tensor_by_name(r, "TEXT").as_numpy()
            assert text.dtype == np.object_, text.dtype
            upper = np.array([t.decode("utf-8").upper() for t in text.reshape(-1)], dtype=np.object_).reshape(text.shape)
            lengths = np.array([len(t) for t in text.reshape(-1)], dtype=np.int32).reshape(text.shape)
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("UPPER", upper), pb_utils.Tensor("LENGTH", lengths)]))
        return out
`;
const STRINGS_CONFIG = `name: "strings"
backend: "python"
max_batch_size: 0
input [ { name: "TEXT" data_type: TYPE_STRING dims: [ -1 ] } ]
output [ { name: "UPPER" data_type: TYPE_STRING dims: [ -1 ] }, { name: "LENGTH" data_type: TYPE_INT32 dims: [ -1 ] } ]
`;

const AUTO_PY = ADD_SUB_PY.replace('class TritonPythonModel:\n', `class TritonPythonModel:
    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        for name in ("INPUT0", "INPUT1"):
            auto_complete_model_config.add_input({"name": name, "data_type": "TYPE_FP32", "dims": [4]})
        for name in ("OUTPUT0", "OUTPUT1"):
            auto_complete_model_config.add_output({"name": name, "data_type": "TYPE_FP32", "dims": [4]})
        auto_complete_model_config.set_max_batch_size(4)
        auto_complete_model_config.set_dynamic_batching()
        return auto_complete_model_config

`);

let repo: TempRepo;
let server: TestServer;
const logs: string[] = [];

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo();
  repo.add('add_sub', addSubConfig(), { 'model.py': ADD_SUB_PY });
  repo.add('strings', STRINGS_CONFIG, { 'model.py': STRINGS_PY });
  repo.add('init_fails', addSubConfig('init_fails'), {
    'model.py': ADD_SUB_PY.replace('    def initialize(self, args):\n', '    def initialize(self, args):\n        raise ValueError("vocabulary file vocab.txt is missing")\n'),
  });
  repo.add('exec_fails', addSubConfig('exec_fails'), {
    'model.py': variant('        if any(pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy()[0, 0] < 0 for r in requests):\n            raise RuntimeError("negative inputs are not allowed")\n        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", np.zeros((1, 4), np.float32)), pb_utils.Tensor("OUTPUT1", np.zeros((1, 4), np.float32))]) for r in requests]'),
  });
  repo.add('wrong_count', addSubConfig('wrong_count'), { 'model.py': variant('        return []') });
  repo.add('wrong_name', addSubConfig('wrong_name'), {
    'model.py': variant('        return [pb_utils.InferenceResponse([pb_utils.Tensor("NOPE", np.zeros((1, 4), np.float32))]) for r in requests]'),
  });
  repo.add('wrong_dtype', addSubConfig('wrong_dtype'), {
    'model.py': variant('        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", np.zeros((1, 4), np.float64)), pb_utils.Tensor("OUTPUT1", np.zeros((1, 4), np.float32))]) for r in requests]'),
  });
  repo.add('wrong_shape', addSubConfig('wrong_shape'), {
    'model.py': variant('        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", np.zeros((1, 3), np.float32)), pb_utils.Tensor("OUTPUT1", np.zeros((1, 4), np.float32))]) for r in requests]'),
  });
  repo.add('error_response', addSubConfig('error_response'), {
    'model.py': variant('        return [pb_utils.InferenceResponse(output_tensors=[], error=pb_utils.TritonError("this request cannot be served")) for r in requests]'),
  });
  repo.add('syntax_error', addSubConfig('syntax_error'), { 'model.py': 'class TritonPythonModel(:\n' });
  repo.add('slow_init', addSubConfig('slow_init', 'parameters { key: "stub_load_timeout_seconds" value: { string_value: "1" } }'), {
    'model.py': ADD_SUB_PY.replace('    def initialize(self, args):\n', '    def initialize(self, args):\n        import time\n        time.sleep(30)\n'),
  });
  // config.pbtxt names only the backend: auto_complete_config supplies the rest
  repo.add('auto', 'backend: "python"\n', { 'model.py': AUTO_PY });
  repo.add('auto_conflict', addSubConfig('auto_conflict').replace('dims: [ 4 ] },\n  { name: "INPUT1"', 'dims: [ 5 ] },\n  { name: "INPUT1"'), { 'model.py': AUTO_PY });
  server = await startTestServer({ modelRepositories: [repo.dir], log: (m) => logs.push(m) });
});

after(async () => {
  await server?.close();
  repo?.remove();
});

const reasonOf = async (name: string) => (await modelIndex(server.url)).find((m) => m.name === name);

test('add_sub (Triton example style, numpy only) loads and answers correctly', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'add_sub', ONE);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const out = Object.fromEntries(r.body.outputs.map((o: { name: string; data: number[] }) => [o.name, o.data]));
  assert.deepEqual(out.OUTPUT0, [1.5, 2.5, 3.5, 4.5]);
  assert.deepEqual(out.OUTPUT1, [0.5, 1.5, 2.5, 3.5]);
  assert.equal(r.body.outputs[0].datatype, 'FP32');
  assert.deepEqual(r.body.outputs[0].shape, [1, 4]);
  // the model's own print, in the server log, prefixed model/version/instance
  assert.ok(logs.some((l) => l.includes('[add_sub/1/add_sub_0_0] initialize add_sub 1 add_sub_0_0 CPU')), logs.join('\n'));
  // only the requested output comes back
  const only = await inferJson(server.url, 'add_sub', ONE, ['OUTPUT1']);
  assert.deepEqual(only.body.outputs.map((o: { name: string }) => o.name), ['OUTPUT1']);
});

test('requests batched together each get their own answer (one InferenceRequest each)', { skip: NO_NUMPY }, async () => {
  const replies = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      inferJson(server.url, 'add_sub', [
        { name: 'INPUT0', datatype: 'FP32', shape: [2, 4], data: Array(8).fill(i) },
        { name: 'INPUT1', datatype: 'FP32', shape: [2, 4], data: Array(8).fill(1) },
      ]),
    ),
  );
  replies.forEach((r, i) => {
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.outputs[0].data, Array(8).fill(i + 1));
    assert.deepEqual(r.body.outputs[0].shape, [2, 4]);
  });
  const sizes = server.events.filter((e) => e.type === 'batch.formed' && e.model === 'add_sub').map((e) => (e as { size: number }).size);
  assert.ok(sizes.some((s) => s > 2), `some batch held several requests: ${sizes.join(',')}`);
});

test('TYPE_STRING in and out: BYTES tensors reach model.py as numpy object arrays of bytes', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'strings', [{ name: 'TEXT', datatype: 'BYTES', shape: [3], data: ['abc', 'Grüße', ''] }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const out = Object.fromEntries(r.body.outputs.map((o: { name: string }) => [o.name, o]));
  assert.equal(out.UPPER.datatype, 'BYTES');
  assert.deepEqual(out.UPPER.data, ['ABC', 'GRÜSSE', '']);
  assert.deepEqual(out.LENGTH.data, [3, 7, 0], 'lengths in bytes (UTF-8: ü and ß take two each)');
});

test("auto_complete_config (static, Triton's API) fills inputs, outputs, max_batch_size and dynamic batching", { skip: NO_NUMPY }, async () => {
  const cfg = await (await fetch(`${server.url}/v2/models/auto/config`)).json();
  assert.equal(cfg.max_batch_size, 4);
  assert.deepEqual(cfg.input.map((i: { name: string }) => i.name), ['INPUT0', 'INPUT1']);
  assert.deepEqual(cfg.output[0].dims, [4]);
  assert.ok(cfg.dynamic_batching, 'dynamic batching set');
  const r = await inferJson(server.url, 'auto', ONE);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const conflict = await reasonOf('auto_conflict');
  assert.equal(conflict?.state, 'UNAVAILABLE');
  assert.match(conflict?.reason ?? '', /auto_complete_config of model 'auto_conflict' raised ValueError: unable to add input 'INPUT0': the configuration already has it with dims \[5\]/);
});

test('an exception in initialize() makes the model UNAVAILABLE with its message', { skip: NO_NUMPY }, async () => {
  const m = await reasonOf('init_fails');
  assert.equal(m?.state, 'UNAVAILABLE');
  assert.match(m?.reason ?? '', /initialize\(\) of model 'init_fails' raised ValueError: vocabulary file vocab\.txt is missing/);
  const syntax = await reasonOf('syntax_error');
  assert.equal(syntax?.state, 'UNAVAILABLE');
  assert.match(syntax?.reason ?? '', /importing model\.py of model 'syntax_error' failed: SyntaxError/);
});

test('a stub that does not become ready within stub_load_timeout_seconds is killed; the model is UNAVAILABLE', { skip: NO_NUMPY }, async () => {
  const m = await reasonOf('slow_init');
  assert.equal(m?.state, 'UNAVAILABLE');
  assert.match(m?.reason ?? '', /did not become ready within 1 s/);
});

test('an exception in execute() fails that batch with its message; the model keeps serving', { skip: NO_NUMPY }, async () => {
  const bad = await inferJson(server.url, 'exec_fails', [{ ...ONE[0], data: [-1, 0, 0, 0] }, ONE[1]]);
  assert.equal(bad.status, 500);
  assert.match(bad.body.error, /execute\(\) of model 'exec_fails' raised RuntimeError: negative inputs are not allowed/);
  const good = await inferJson(server.url, 'exec_fails', ONE);
  assert.equal(good.status, 200, JSON.stringify(good.body));
  assert.equal((await reasonOf('exec_fails'))?.state, 'READY');
});

test('wrong response count, output name, dtype or shape, and error responses: clear errors, never a hang', { skip: NO_NUMPY }, async () => {
  const cases: [string, RegExp][] = [
    ['wrong_count', /execute\(\) of model 'wrong_count' returned 0 responses for 1 requests/],
    ['wrong_name', /returned output 'NOPE', which model 'wrong_name' does not declare \(outputs: OUTPUT0, OUTPUT1\)/],
    ['wrong_dtype', /returned output 'OUTPUT0' as FP64, but model 'wrong_dtype' declares TYPE_FP32/],
    ['wrong_shape', /returned output 'OUTPUT0' with shape \[1,3\], but model 'wrong_shape' expects \[1,4\]/],
    ['error_response', /this request cannot be served/],
  ];
  for (const [model, message] of cases) {
    const r = await inferJson(server.url, model, ONE);
    assert.equal(r.status, 500, `${model}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, message);
    // the stub survived: a second request gets the same clear answer
    assert.match((await inferJson(server.url, model, ONE)).body.error, message);
  }
});

test('an interpreter that does not exist: python models UNAVAILABLE saying so, the others serve', { skip: NO_NUMPY }, async () => {
  const own = tempRepo();
  own.add('add_sub', addSubConfig(), { 'model.py': ADD_SUB_PY });
  cpSync(join(DEMO_REPO, 'text_encoder'), join(own.dir, 'text_encoder'), { recursive: true });
  const s = await startTestServer({ modelRepositories: [own.dir], python: '/nonexistent/python3' });
  try {
    const index = await modelIndex(s.url);
    const addSub = index.find((m) => m.name === 'add_sub');
    assert.equal(addSub?.state, 'UNAVAILABLE');
    assert.match(addSub?.reason ?? '', /cannot start the Python interpreter '\/nonexistent\/python3'.*ENOENT.*--python or INFERSCOPE_PYTHON/);
    assert.equal(index.find((m) => m.name === 'text_encoder')?.state, 'READY');
  } finally {
    await s.close();
    own.remove();
  }
});
