// BLS call chains through the real server and real stubs (issue 56): a call that could only run on an
// instance its own chain holds fails at once, naming the chain (self-recursion with one instance, a cycle
// a -> b -> a, every instance of a model held), a chain that leaves an instance free runs, and the nesting
// bound holds on a decoupled model's response threads, which do not hold their instance.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { NO_NUMPY, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';
import { MAX_BLS_DEPTH } from '../../apps/server/src/backends/stub/bls-calls.ts';

// Calls the model its config names in parameter `next` with N - 1 until N is 0, from execute(); answers
// how many levels answered (DEPTH) and the error the deepest call got (ERROR).
const PING_PY = `
import json
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.next = json.loads(args["model_config"])["parameters"]["next"]["string_value"]

    def execute(self, requests):
        out = []
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "N").as_numpy()
            if n[0] == 0:
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("DEPTH", np.array([0], np.int32)), pb_utils.Tensor("ERROR", np.array([b""], dtype=np.object_))]))
                continue
            r = pb_utils.InferenceRequest(model_name=self.next, requested_output_names=["DEPTH", "ERROR"], inputs=[pb_utils.Tensor("N", n - 1)]).exec()
            if r.has_error():
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("DEPTH", np.array([1], np.int32)), pb_utils.Tensor("ERROR", np.array([r.error().message().encode()], dtype=np.object_))]))
                continue
            d = pb_utils.get_output_tensor_by_name(r, "DEPTH").as_numpy()
            e = pb_utils.get_output_tensor_by_name(r, "ERROR").as_numpy()
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("DEPTH", d + 1), pb_utils.Tensor("ERROR", e)]))
        return out
`;
const IO = `input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "DEPTH" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "ERROR" data_type: TYPE_STRING dims: [ 1 ] } ]`;
const pingConfig = (name: string, next: string, instances: number) => `name: "${name}"
backend: "python"
max_batch_size: 0
${IO}
instance_group [ { count: ${instances} kind: KIND_CPU } ]
parameters { key: "next" value: { string_value: "${next}" } }
`;

// A decoupled model that recurses into itself from a response thread: execute() starts a thread and
// returns (so the instance is free again); the thread calls the model with N - 1 (exec(decoupled=True)),
// and sends one response, DEPTH and ERROR as above, with the final flag.
const THREAD_PY = `
import threading
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "N").as_numpy()
            sender = request.get_response_sender()
            threading.Thread(target=self.answer, args=(n, sender), daemon=True).start()
        return None

    def answer(self, n, sender):
        final = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
        def send(depth, error):
            sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("DEPTH", np.array(depth, np.int32)), pb_utils.Tensor("ERROR", error)]), flags=final)
        if n[0] == 0:
            return send([0], np.array([b""], dtype=np.object_))
        got = None
        for r in pb_utils.InferenceRequest(model_name="thread_recurse", requested_output_names=["DEPTH", "ERROR"], inputs=[pb_utils.Tensor("N", n - 1)]).exec(decoupled=True):
            if r.has_error():
                return send([1], np.array([r.error().message().encode()], dtype=np.object_))
            if r.output_tensors():
                got = r
        send(pb_utils.get_output_tensor_by_name(got, "DEPTH").as_numpy() + 1, pb_utils.get_output_tensor_by_name(got, "ERROR").as_numpy())
`;
// the client's way in: one BLS call to the decoupled model, its one response handed back
const DRIVE_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "N")
            got = None
            for r in pb_utils.InferenceRequest(model_name="thread_recurse", requested_output_names=["DEPTH", "ERROR"], inputs=[n]).exec(decoupled=True):
                assert not r.has_error(), r.error().message()
                if r.output_tensors():
                    got = r
            out.append(pb_utils.InferenceResponse([pb_utils.get_output_tensor_by_name(got, "DEPTH"), pb_utils.get_output_tensor_by_name(got, "ERROR")]))
        return out
`;

let repo: TempRepo;
let server: TestServer;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-bls-chain-');
  repo.add('self1', pingConfig('self1', 'self1', 1), { 'model.py': PING_PY });
  repo.add('self2', pingConfig('self2', 'self2', 2), { 'model.py': PING_PY });
  repo.add('self3', pingConfig('self3', 'self3', 3), { 'model.py': PING_PY });
  repo.add('cyc_a', pingConfig('cyc_a', 'cyc_b', 1), { 'model.py': PING_PY });
  repo.add('cyc_b', pingConfig('cyc_b', 'cyc_a', 1), { 'model.py': PING_PY });
  repo.add('thread_recurse', `name: "thread_recurse"\nbackend: "python"\nmax_batch_size: 0\n${IO}\nmodel_transaction_policy { decoupled: true }\ninstance_group [ { count: 1 kind: KIND_CPU } ]\n`, { 'model.py': THREAD_PY });
  repo.add('drive', `name: "drive"\nbackend: "python"\nmax_batch_size: 0\n${IO}\ninstance_group [ { count: 1 kind: KIND_CPU } ]\n`, { 'model.py': DRIVE_PY });
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: null });
});

after(async () => {
  await server?.close();
  repo?.remove();
});

const out = (body: any, name: string) => body.outputs.find((o: any) => o.name === name)?.data;
const ping = (model: string, n: number) => inferJson(server.url, model, [{ name: 'N', datatype: 'INT32', shape: [1], data: [n] }]);

test('a model with one instance calling itself: the call fails at once, naming the chain', { skip: NO_NUMPY }, async () => {
  const r = await ping('self1', 3);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(out(r.body, 'DEPTH'), [1]); // only the client's level answered: its call was refused
  assert.equal(out(r.body, 'ERROR')[0], "BLS deadlock: self1 -> self1: model 'self1' has 1 instance and it is held by this call's own chain");
  // nothing is left waiting: the model answers the next request at once
  assert.deepEqual(out((await ping('self1', 0)).body, 'DEPTH'), [0]);
});

test('a cycle a -> b -> a with one instance each fails at once, naming the cycle', { skip: NO_NUMPY }, async () => {
  const r = await ping('cyc_a', 3);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(out(r.body, 'DEPTH'), [2]); // cyc_a and cyc_b answered; cyc_b's call back to cyc_a was refused
  assert.equal(out(r.body, 'ERROR')[0], "BLS deadlock: cyc_a -> cyc_b -> cyc_a: model 'cyc_a' has 1 instance and it is held by this call's own chain");
});

test('with several instances a call fails only when the chain holds every one of them', { skip: NO_NUMPY }, async () => {
  const two = await ping('self2', 3);
  assert.equal(two.status, 200, JSON.stringify(two.body));
  assert.deepEqual(out(two.body, 'DEPTH'), [2]); // the second level ran on the other instance
  assert.equal(out(two.body, 'ERROR')[0], "BLS deadlock: self2 -> self2 -> self2: model 'self2' has 2 instances and all are held by this call's own chain");
  // three instances, two levels of calls: an instance is always free of the chain, so it runs to the end
  const three = await ping('self3', 2);
  assert.equal(three.status, 200, JSON.stringify(three.body));
  assert.deepEqual(out(three.body, 'DEPTH'), [2]);
  assert.deepEqual(out(three.body, 'ERROR'), ['']);
});

test(`a decoupled model recursing from its response thread stops at ${MAX_BLS_DEPTH} levels`, { skip: NO_NUMPY }, async () => {
  // the client's request reaches drive (level 0), its call thread_recurse (level 1), each response thread
  // calls one level deeper: the call that would be level MAX_BLS_DEPTH + 1 is refused
  const r = await ping('drive', MAX_BLS_DEPTH + 12);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(out(r.body, 'ERROR')[0], new RegExp(`^BLS calls nest deeper than ${MAX_BLS_DEPTH} levels: drive -> thread_recurse -> `));
  assert.deepEqual(out(r.body, 'DEPTH'), [MAX_BLS_DEPTH]);
  // under the bound the same recursion completes: the response threads do not hold the one instance
  const shallow = await ping('drive', 3);
  assert.equal(shallow.status, 200, JSON.stringify(shallow.body));
  assert.deepEqual(out(shallow.body, 'DEPTH'), [3]);
  assert.deepEqual(out(shallow.body, 'ERROR'), ['']);
});
