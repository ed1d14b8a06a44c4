// Cancellation reaches model.py through real stubs: a BLS call whose timeout passes, whose calling request
// is cancelled by its client or fails (execute timeout), or that model.py cancels itself
// (bls_response_iterator.cancel()) ends with an error response, and its request is cancelled wherever it
// is: taken out of the queue, or told while it runs (request.is_cancelled()). A client leaving a
// generate_stream (SSE) or a gRPC unary call stops the model (sender.is_cancelled(), request.is_cancelled()).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { NO_NUMPY, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';
import { grpcClient, type TestGrpcClient } from '../grpc/client.ts';

// holds its request up to HOLD seconds, polling request.is_cancelled(); says what it saw
const SLOW_PY = `
import time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            hold = int(pb_utils.get_input_tensor_by_name(request, "HOLD").as_numpy()[0])
            print("slow started %d" % hold, flush=True)
            end = time.time() + hold
            while time.time() < end and not request.is_cancelled():
                time.sleep(0.01)
            if request.is_cancelled():
                print("slow saw the cancellation of %d" % hold, flush=True)
                out.append(pb_utils.InferenceResponse(error=pb_utils.TritonError("stopped", pb_utils.TritonError.CANCELLED)))
            else:
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([hold], np.int32))]))
        return out
`;
const SLOW_CONFIG = `name: "slow"
backend: "python"
max_batch_size: 0
input [ { name: "HOLD" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

// calls slow with HOLD and the BLS timeout TIMEOUT_US (0: none); reports the answer and its own cancellation
const CALLER_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            hold = pb_utils.get_input_tensor_by_name(request, "HOLD")
            timeout = int(pb_utils.get_input_tensor_by_name(request, "TIMEOUT_US").as_numpy()[0])
            r = pb_utils.InferenceRequest(model_name="slow", requested_output_names=["OUT"], inputs=[hold], timeout=timeout).exec()
            said = r.error().message() if r.has_error() else "ok"
            print("caller %d got: %s; cancelled=%s" % (int(hold.as_numpy()[0]), said, request.is_cancelled()), flush=True)
            if r.has_error():
                out.append(pb_utils.InferenceResponse(error=pb_utils.TritonError("BLS said: " + said)))
            else:
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", r.output_tensors()[0].as_numpy())]))
        return out
`;
const callerConfig = (name: string, extra = '') => `name: "${name}"
backend: "python"
max_batch_size: 0
input [ { name: "HOLD" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "TIMEOUT_US" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
${extra}`;

// a decoupled model streaming until its request is cancelled
const STREAMER_PY = `
import threading, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            threading.Thread(target=self.respond, args=(request, request.get_response_sender()), daemon=True).start()
        return None

    def respond(self, request, sender):
        sent = 0
        while not sender.is_cancelled() and sent < 3000:
            sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([sent], np.int32))]))
            sent += 1
            time.sleep(0.01)
        print("streamer stopped: sender cancelled=%s request cancelled=%s" % (sender.is_cancelled(), request.is_cancelled()), flush=True)
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
`;
const STREAMER_CONFIG = `name: "streamer"
backend: "python"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
`;

// reads two responses of the streamer, cancels the call, then reads on to the end
const ITERATOR_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "IN")
            it = pb_utils.InferenceRequest(model_name="streamer", requested_output_names=["OUT"], inputs=[n]).exec(decoupled=True)
            seen = [next(it), next(it)]
            it.cancel()
            rest = list(it)
            last = rest[-1] if rest else None
            print("iterator: %d before cancel, %d after, last error: %s" % (len(seen), len(rest), last.error().message() if last is not None and last.has_error() else None), flush=True)
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([len(rest)], np.int32))]))
        return out
`;
const ITERATOR_CONFIG = `name: "iterator"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
`;

let repo: TempRepo;
let server: TestServer;
let client: TestGrpcClient;
const logs: string[] = [];
const logged = (re: RegExp) => logs.some((l) => re.test(l));
const seen = (re: RegExp, what = String(re)) => waitFor(() => logged(re), what);

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-cancel-');
  repo.add('slow', SLOW_CONFIG, { 'model.py': SLOW_PY });
  repo.add('caller', callerConfig('caller'), { 'model.py': CALLER_PY });
  repo.add('doomed_caller', callerConfig('doomed_caller', 'parameters { key: "execute_timeout_ms" value: { string_value: "400" } }'), { 'model.py': CALLER_PY });
  repo.add('streamer', STREAMER_CONFIG, { 'model.py': STREAMER_PY });
  repo.add('iterator', ITERATOR_CONFIG, { 'model.py': ITERATOR_PY });
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, log: (m: string) => logs.push(m) });
  client = grpcClient(server.grpcAddress!);
});

after(async () => {
  client?.close();
  await server?.close();
  repo?.remove();
});

const callerInputs = (hold: number, timeoutUs = 0) => [
  { name: 'HOLD', datatype: 'INT32', shape: [1], data: [hold] },
  { name: 'TIMEOUT_US', datatype: 'INT32', shape: [1], data: [timeoutUs] },
];

/** an HTTP infer the test can walk away from */
function leavableInfer(model: string, inputs: unknown[]): { abort(): void; done: Promise<unknown> } {
  const ac = new AbortController();
  const done = fetch(`${server.url}/v2/models/${model}/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inputs }), signal: ac.signal,
  }).then((r) => r.json(), (e) => e);
  return { abort: () => ac.abort(), done };
}

test('a BLS timeout answers the call and cancels the called request while it runs', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'caller', callerInputs(5, 200_000));
  assert.equal(r.status, 500);
  assert.match(r.body.error, /BLS said: Request timeout expired/);
  await seen(/slow saw the cancellation of 5/, 'slow to see its cancellation');
});

test('a client leaving its request cancels the BLS call the model is waiting on; both requests see is_cancelled()', { skip: NO_NUMPY }, async () => {
  const call = leavableInfer('caller', callerInputs(6));
  await seen(/slow started 6/);
  call.abort();
  await seen(/slow saw the cancellation of 6/);
  await seen(/caller 6 got: BLS call to model 'slow' cancelled: the request of model 'caller' that made it was cancelled.*; cancelled=True/);
  await call.done;
});

test('a BLS call still queued when its caller is cancelled is taken out of the queue and never runs', { skip: NO_NUMPY }, async () => {
  const occupy = leavableInfer('slow', [{ name: 'HOLD', datatype: 'INT32', shape: [1], data: [7] }]);
  await seen(/slow started 7/);
  const from = server.events.length;
  const call = leavableInfer('caller', callerInputs(8));
  await waitFor(() => server.events.slice(from).some((e) => e.type === 'request.queued' && e.model === 'slow' && /\/bls\d+$/.test(e.request_id)), 'the BLS call to queue behind the running request');
  call.abort();
  await seen(/caller 8 got: .*cancelled/);
  occupy.abort();
  await seen(/slow saw the cancellation of 7/);
  await occupy.done;
  await call.done;
  // the instance is free again and the queued call is gone: slow never started it
  const again = await inferJson(server.url, 'slow', [{ name: 'HOLD', datatype: 'INT32', shape: [1], data: [0] }]);
  assert.equal(again.status, 200);
  assert.ok(!logged(/slow started 8/), logs.join('\n'));
});

test('a calling request that fails (its execute timeout killed its stub) cancels its BLS call', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'doomed_caller', callerInputs(9));
  assert.equal(r.status, 500);
  assert.match(r.body.error, /did not return within 400 ms \(parameter execute_timeout_ms\)/);
  await seen(/slow saw the cancellation of 9/);
});

test('model.py cancels a decoupled BLS call: the called model\'s sender stops, the iterator ends with a CANCELLED response', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'iterator', [{ name: 'IN', datatype: 'INT32', shape: [1], data: [1] }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // what arrived before the cancellation reached the server, then the call's CANCELLED final response
  assert.ok(r.body.outputs[0].data[0] >= 1);
  assert.ok(logged(/iterator: 2 before cancel, \d+ after, last error: BLS call to model 'streamer' cancelled by the calling model/), logs.join('\n'));
  await seen(/streamer stopped: sender cancelled=True request cancelled=True/);
});

test('a client leaving generate_stream stops the decoupled model\'s sender', { skip: NO_NUMPY }, async () => {
  const before = logs.filter((l) => /streamer stopped/.test(l)).length;
  const ac = new AbortController();
  const r = await fetch(`${server.url}/v2/models/streamer/generate_stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ IN: 1 }), signal: ac.signal });
  assert.equal(r.status, 200);
  const reader = r.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^data: /);
  ac.abort();
  await waitFor(() => logs.filter((l) => /streamer stopped: sender cancelled=True/.test(l)).length > before, 'the sender to see the client leave');
});

test('a gRPC client cancelling a unary call: the running python request sees is_cancelled()', { skip: NO_NUMPY }, async () => {
  const call = client.raw.ModelInfer({
    model_name: 'slow', inputs: [{ name: 'HOLD', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(new Int32Array([10]).buffer)],
  }, () => undefined);
  await seen(/slow started 10/);
  call.cancel();
  await seen(/slow saw the cancellation of 10/);
});
