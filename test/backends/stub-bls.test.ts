// BLS through the real server and real stubs: Triton's bls example pattern (sync exec() and async
// async_exec() with asyncio.gather) calling a python model and an ONNX model, each through its own
// scheduler, announced as children of the calling request; errors of the called model (unknown model,
// bad input) as the response's error; recursion bounded; a BLS timeout answered, never a hang.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, DEMO_REPO, type TestServer } from '../support/server.ts';
import { ADD_SUB_PY, NO_NUMPY, addSubConfig, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';
import { MAX_BLS_DEPTH } from '../../apps/server/src/backends/stub/bls-calls.ts';

const BLS_CONFIG = (name: string) => `name: "${name}"
backend: "python"
max_batch_size: 0
input [
  { name: "MODEL_NAME" data_type: TYPE_STRING dims: [ 1 ] },
  { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
  { name: "INPUT1" data_type: TYPE_FP32 dims: [ 4 ] }
]
output [
  { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
  { name: "OUTPUT1" data_type: TYPE_FP32 dims: [ 4 ] }
]
instance_group [{ kind: KIND_CPU }]
`;

// Written after Triton's examples/bls/sync_model.py (its behaviour, not its text): the called model's
// name comes in a TYPE_STRING input; an error response becomes a TritonModelException.
const SYNC_PY = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            in_0 = pb_utils.get_input_tensor_by_name(request, "INPUT0")
            in_1 = pb_utils.get_input_tensor_by_name(request, "INPUT1")
            name = pb_utils.get_input_tensor_by_name(request, "MODEL_NAME").as_numpy()[0]
            r = pb_utils.InferenceRequest(model_name=name, requested_output_names=["OUTPUT0", "OUTPUT1"], inputs=[in_0, in_1]).exec()
            if r.has_error():
                raise pb_utils.TritonModelException(r.error().message())
            responses.append(pb_utils.InferenceResponse(output_tensors=r.output_tensors()))
        return responses
`;

// after examples/bls/async_model.py: two calls awaited together, outputs picked from each
const ASYNC_PY = `
import asyncio
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    async def execute(self, requests):
        responses = []
        for request in requests:
            in_0 = pb_utils.get_input_tensor_by_name(request, "INPUT0")
            in_1 = pb_utils.get_input_tensor_by_name(request, "INPUT1")
            calls = [pb_utils.InferenceRequest(model_name=m, requested_output_names=["OUTPUT0", "OUTPUT1"], inputs=[in_0, in_1]).async_exec()
                     for m in ["add_sub", "sub_add"]]
            results = await asyncio.gather(*calls)
            for r in results:
                if r.has_error():
                    raise pb_utils.TritonModelException(r.error().message())
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.get_output_tensor_by_name(results[0], "OUTPUT0"),
                pb_utils.get_output_tensor_by_name(results[1], "OUTPUT1"),
            ]))
        return responses
`;

// calls the ONNX MLP and answers with its argmax and the error message of a call to an unknown model
const ONNX_CALLER_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X")
            r = pb_utils.InferenceRequest(model_name="mlp_classifier", requested_output_names=["probabilities"],
                                          inputs=[pb_utils.Tensor("input", x.as_numpy())]).exec()
            assert not r.has_error(), r.error().message()
            p = pb_utils.get_output_tensor_by_name(r, "probabilities").as_numpy()
            bad = pb_utils.InferenceRequest(model_name="no_such_model", requested_output_names=["y"], inputs=[x]).exec()
            wrong = pb_utils.InferenceRequest(model_name="mlp_classifier", requested_output_names=["probabilities"],
                                              inputs=[pb_utils.Tensor("input", np.zeros((1, 3), np.float32))]).exec()
            msgs = np.array([bad.error().message().encode(), wrong.error().message().encode()], dtype=np.object_)
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("P", p.astype(np.float32)), pb_utils.Tensor("ERRORS", msgs)]))
        return out
`;
const ONNX_CALLER_CONFIG = `name: "onnx_caller"
backend: "python"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1, 784 ] } ]
output [ { name: "P" data_type: TYPE_FP32 dims: [ 1, 10 ] }, { name: "ERRORS" data_type: TYPE_STRING dims: [ 2 ] } ]
`;

// calls itself with one level less until 0; its depth reaches MAX_BLS_DEPTH and the next call is refused
const RECURSE_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "N").as_numpy()
            if n[0] == 0:
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("DEPTH", np.array([0], np.int32)), pb_utils.Tensor("ERROR", np.array([b""], dtype=np.object_))]))
                continue
            r = pb_utils.InferenceRequest(model_name="recurse", requested_output_names=["DEPTH", "ERROR"], inputs=[pb_utils.Tensor("N", n - 1)]).exec()
            if r.has_error():
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("DEPTH", np.array([1], np.int32)), pb_utils.Tensor("ERROR", np.array([r.error().message().encode()], dtype=np.object_))]))
                continue
            d = pb_utils.get_output_tensor_by_name(r, "DEPTH").as_numpy()
            e = pb_utils.get_output_tensor_by_name(r, "ERROR").as_numpy()
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("DEPTH", d + 1), pb_utils.Tensor("ERROR", e)]))
        return out
`;
const RECURSE_CONFIG = `name: "recurse"
backend: "python"
max_batch_size: 0
input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "DEPTH" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "ERROR" data_type: TYPE_STRING dims: [ 1 ] } ]
instance_group [ { count: ${MAX_BLS_DEPTH + 2} kind: KIND_CPU } ]
`;

// a model that takes its time, and a caller that gives it 50 ms (Triton's timeout, in µs)
const SLOW_PY = ADD_SUB_PY.replace('    def execute(self, requests):\n', '    def execute(self, requests):\n        import time\n        time.sleep(1.5)\n');
const TIMEOUT_PY = SYNC_PY.replace('inputs=[in_0, in_1]).exec()', 'inputs=[in_0, in_1], timeout=50000).exec()').replace(
  'raise pb_utils.TritonModelException(r.error().message())', 'raise pb_utils.TritonModelException("BLS said: " + r.error().message())');

// Triton's examples/add_sub config has no batch dimension (max_batch_size 0), as the bls example expects
const unbatched = (name: string) => addSubConfig(name).replace('max_batch_size: 8', 'max_batch_size: 0').replace(/dynamic_batching \{[^}]*\}/, '');

let repo: TempRepo;
let server: TestServer;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-bls-');
  repo.add('add_sub', unbatched('add_sub'), { 'model.py': ADD_SUB_PY });
  // the same model with its outputs swapped: proves each output came from the model asked for
  repo.add('sub_add', unbatched('sub_add'), { 'model.py': ADD_SUB_PY.replace('in_0.as_numpy() + in_1.as_numpy()', 'TMP').replace('in_0.as_numpy() - in_1.as_numpy()', 'in_0.as_numpy() + in_1.as_numpy()').replace('TMP', 'in_0.as_numpy() - in_1.as_numpy()') });
  repo.add('bls_sync', BLS_CONFIG('bls_sync'), { 'model.py': SYNC_PY });
  repo.add('bls_async', BLS_CONFIG('bls_async'), { 'model.py': ASYNC_PY });
  repo.add('onnx_caller', ONNX_CALLER_CONFIG, { 'model.py': ONNX_CALLER_PY });
  repo.add('recurse', RECURSE_CONFIG, { 'model.py': RECURSE_PY });
  repo.add('slow', unbatched('slow'), { 'model.py': SLOW_PY });
  repo.add('bls_timeout', BLS_CONFIG('bls_timeout'), { 'model.py': TIMEOUT_PY });
  cpSync(join(DEMO_REPO, 'mlp_classifier'), join(repo.dir, 'mlp_classifier'), { recursive: true });
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: null });
});

after(async () => {
  await server?.close();
  repo?.remove();
});

const A = [1, 2, 3, 4];
const B = [10, 20, 30, 40];
const inputs = (model: string) => [
  { name: 'MODEL_NAME', datatype: 'BYTES', shape: [1], data: [model] },
  { name: 'INPUT0', datatype: 'FP32', shape: [4], data: A },
  { name: 'INPUT1', datatype: 'FP32', shape: [4], data: B },
];
const out = (body: any, name: string) => body.outputs.find((o: any) => o.name === name)?.data;

test('sync BLS: exec() runs the named model through its scheduler, as a child of the calling request', { skip: NO_NUMPY }, async () => {
  const before = server.events.length;
  const r = await inferJson(server.url, 'bls_sync', inputs('add_sub'));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(out(r.body, 'OUTPUT0'), [11, 22, 33, 44]);
  assert.deepEqual(out(r.body, 'OUTPUT1'), [-9, -18, -27, -36]);
  const events = server.events.slice(before);
  const parent = events.find((e) => e.type === 'request.queued' && e.model === 'bls_sync');
  const step = events.find((e) => e.type === 'ensemble.step' && e.model === 'add_sub');
  assert.ok(parent && step && step.type === 'ensemble.step');
  assert.equal(step.via, 'bls');
  assert.equal(step.parent.request_id, (parent as { request_id: string }).request_id);
  // the child entered add_sub's own scheduler: queued and completed there under the announced id
  assert.ok(events.some((e) => e.type === 'request.queued' && e.model === 'add_sub' && e.request_id === step.request_id));
  assert.ok(events.some((e) => e.type === 'request.completed' && e.model === 'add_sub' && e.request_id === step.request_id && e.ok));
});

test('sync BLS to an unknown model: the error reaches model.py as the response error (Triton says what is missing)', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'bls_sync', inputs('no_such_model'));
  assert.equal(r.status, 500);
  assert.match(r.body.error, /no_such_model/);
});

test('async BLS: async def execute with asyncio.gather over async_exec() calls', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'bls_async', inputs('unused'));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(out(r.body, 'OUTPUT0'), [11, 22, 33, 44]); // add_sub's sum
  assert.deepEqual(out(r.body, 'OUTPUT1'), [11, 22, 33, 44]); // sub_add's OUTPUT1 is the sum as well
  const many = await Promise.all(Array.from({ length: 6 }, () => inferJson(server.url, 'bls_async', inputs('unused'))));
  assert.ok(many.every((x) => x.status === 200));
});

test('BLS to an ONNX model gives its outputs; bad inputs and unknown models come back as error responses', { skip: NO_NUMPY }, async () => {
  const x = Array.from({ length: 784 }, (_, i) => (i % 7) / 7);
  const direct = await inferJson(server.url, 'mlp_classifier', [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: x }]);
  const r = await inferJson(server.url, 'onnx_caller', [{ name: 'X', datatype: 'FP32', shape: [1, 784], data: x }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const p = out(r.body, 'P') as number[];
  const q = direct.body.outputs[0].data as number[];
  p.forEach((v, i) => assert.ok(Math.abs(v - q[i]) < 1e-6));
  const [unknown, wrong] = out(r.body, 'ERRORS') as string[];
  assert.match(unknown, /no_such_model/);
  assert.match(wrong, /input/);
});

test(`BLS recursion is bounded: the call ${MAX_BLS_DEPTH + 1} levels deep is refused, the ones above answer`, { skip: NO_NUMPY }, async () => {
  const ok = await inferJson(server.url, 'recurse', [{ name: 'N', datatype: 'INT32', shape: [1], data: [3] }]);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(out(ok.body, 'DEPTH'), [3]);
  const deep = await inferJson(server.url, 'recurse', [{ name: 'N', datatype: 'INT32', shape: [1], data: [MAX_BLS_DEPTH + 1] }]);
  assert.equal(deep.status, 200, JSON.stringify(deep.body));
  assert.match(out(deep.body, 'ERROR')[0], new RegExp(`deeper than ${MAX_BLS_DEPTH}`));
  // levels 0..MAX_BLS_DEPTH answered (the deepest with 1, each above it adding 1)
  assert.deepEqual(out(deep.body, 'DEPTH'), [MAX_BLS_DEPTH + 1]);
});

test('a BLS timeout answers the call with an error when the called model is too slow', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'bls_timeout', inputs('slow'));
  assert.equal(r.status, 500);
  assert.match(r.body.error, /BLS said: Request timeout expired/);
});
