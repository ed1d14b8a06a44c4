// Decoupled python models through the real server: a square_int32-like model (Triton's examples/decoupled
// behaviour: n responses from a thread, then the final flag) over gRPC ModelStreamInfer, with and without
// tritonclient's enable_empty_final_response; the same model over HTTP generate / generate_stream (SSE);
// unary infer refused with Triton's words; a model that never sends the final flag fails after its
// timeout; a response after the final flag is refused and logged; decoupled BLS iterates the responses;
// a cancelled stream stops the model's sender.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, DEMO_REPO, type TestServer } from '../support/server.ts';
import { NO_NUMPY, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';
import { grpcClient, type TestGrpcClient } from '../grpc/client.ts';
import { FINAL_TIMEOUT_KEY } from '../../apps/server/src/backends/stub/decoupled-runs.ts';
import { waitFor } from '../support/wait.ts';

const SQUARE_PY = `
import threading
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        import json
        assert pb_utils.using_decoupled_model_transaction_policy(json.loads(args["model_config"]))
        self.threads = []

    def execute(self, requests):
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            t = threading.Thread(target=self.respond, args=(request.get_response_sender(), int(n[0])), daemon=True)
            self.threads.append(t)
            t.start()
        return None

    def respond(self, sender, n):
        for i in range(n):
            sender.send(pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("OUT", np.array([n], np.int32))]))
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)

    def finalize(self):
        for t in self.threads:
            t.join()
`;
const decoupledConfig = (name: string, extra = '') => `name: "${name}"
backend: "python"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
instance_group [{ kind: KIND_CPU }]
${extra}`;

// forgets the final flag for n = 1; sends after its final flag for n = 2 (the stub refuses that send);
// n = 3: streams until its client cancels, then reports how many sends it made after the cancellation
const BAD_PY = `
import threading, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            n = int(pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()[0])
            threading.Thread(target=self.respond, args=(request, request.get_response_sender(), n), daemon=True).start()
        return None

    def respond(self, request, sender, n):
        out = lambda v: pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("OUT", np.array([v], np.int32))])
        if n == 1:
            sender.send(out(1))
        elif n == 2:
            sender.send(out(2), flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            try:
                sender.send(out(3))
            except pb_utils.TritonModelException as e:
                print("late send refused: %s" % e.message(), flush=True)
        elif n == 3:
            while not sender.is_cancelled() and not request.is_cancelled():
                sender.send(out(3))
                time.sleep(0.01)
            print("sender saw the cancellation", flush=True)
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
`;

// decoupled BLS: iterates square's responses and answers with their count and sum
const BLS_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "IN")
            count, total = 0, 0
            for r in pb_utils.InferenceRequest(model_name="square", requested_output_names=["OUT"], inputs=[n]).exec(decoupled=True):
                assert not r.has_error(), r.error().message()
                if len(r.output_tensors()) > 0:
                    count += 1
                    total += int(pb_utils.get_output_tensor_by_name(r, "OUT").as_numpy()[0])
            refused = pb_utils.InferenceRequest(model_name="square", requested_output_names=["OUT"], inputs=[n]).exec()
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([count, total], np.int32)),
                                                  pb_utils.Tensor("ERR", np.array([refused.error().message().encode()], dtype=np.object_))]))
        return out
`;
const BLS_CONFIG = `name: "bls_stream"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 2 ] }, { name: "ERR" data_type: TYPE_STRING dims: [ 1 ] } ]
`;

let repo: TempRepo;
let server: TestServer;
let client: TestGrpcClient;
const logs: string[] = [];

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-decoupled-');
  repo.add('square', decoupledConfig('square'), { 'model.py': SQUARE_PY });
  repo.add('bad', decoupledConfig('bad', `parameters { key: "${FINAL_TIMEOUT_KEY}" value: { string_value: "1" } }`), { 'model.py': BAD_PY });
  repo.add('bls_stream', BLS_CONFIG, { 'model.py': BLS_PY });
  cpSync(join(DEMO_REPO, 'token_streamer'), join(repo.dir, 'token_streamer'), { recursive: true });
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, log: (m: string) => logs.push(m) });
  client = grpcClient(server.grpcAddress!);
});

after(async () => {
  client?.close();
  await server?.close();
  repo?.remove();
});

const intIn = (n: number, id: string, params: object = {}) => ({
  model_name: 'square', id, parameters: params,
  inputs: [{ name: 'IN', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(new Int32Array([n]).buffer)],
});
const outOf = (r: any): number => new Int32Array(new Uint8Array(r.infer_response.raw_output_contents[0]).buffer)[0];

function streamAll(requests: object[]): Promise<any[]> {
  const stream = client.raw.ModelStreamInfer();
  const got: any[] = [];
  return new Promise((resolve, reject) => {
    stream.on('data', (r: unknown) => got.push(r));
    stream.on('end', () => resolve(got));
    stream.on('error', reject);
    for (const r of requests) stream.write(r);
    stream.end();
  });
}

test('gRPC stream: a decoupled model sends n responses per request; the stream ends after every final flag', { skip: NO_NUMPY }, async () => {
  const got = await streamAll([intIn(3, 'a'), intIn(0, 'b'), intIn(2, 'c')]);
  assert.ok(got.every((r) => r.error_message === ''), JSON.stringify(got.map((r) => r.error_message)));
  const byId = (id: string) => got.filter((r) => r.infer_response.id === id);
  assert.deepEqual(byId('a').map(outOf), [3, 3, 3]);
  assert.equal(byId('b').length, 0); // 0 responses, and no empty final one unless asked for
  assert.deepEqual(byId('c').map(outOf), [2, 2]);
});

test('gRPC stream with triton_enable_empty_final_response: every response says whether it is final', { skip: NO_NUMPY }, async () => {
  const got = await streamAll([intIn(2, 'f', { triton_enable_empty_final_response: { bool_param: true } })]);
  assert.equal(got.length, 3);
  const finals = got.map((r) => r.infer_response.parameters.triton_final_response.bool_param);
  assert.deepEqual(finals, [false, false, true]);
  assert.equal(got[2].infer_response.outputs.length, 0);
});

test('a decoupled model on unary endpoints is refused with Triton\'s words', { skip: NO_NUMPY }, async () => {
  const http = await inferJson(server.url, 'square', [{ name: 'IN', datatype: 'INT32', shape: [1], data: [2] }]);
  assert.equal(http.status, 501);
  assert.equal(http.body.error, "HTTP end point doesn't support models with decoupled transaction policy");
  const err = await client.call('ModelInfer', intIn(2, 'u')).then(() => null, (e) => e);
  assert.equal(err?.code, status.UNIMPLEMENTED);
  assert.match(err.details, /ModelInfer RPC doesn't support models with decoupled transaction policy/);
});

test('generate_stream sends each response as a server-sent event; generate answers once', { skip: NO_NUMPY }, async () => {
  const r = await fetch(`${server.url}/v2/models/square/generate_stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'g1', IN: 4 }) });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = (await r.text()).split('\n\n').filter(Boolean);
  assert.equal(events.length, 4);
  for (const e of events) assert.deepEqual(JSON.parse(e.replace(/^data: /, '')), { model_name: 'square', model_version: '1', id: 'g1', OUT: 4 });
  const one = await fetch(`${server.url}/v2/models/square/versions/1/generate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ IN: 2 }) });
  assert.equal(one.status, 200);
  assert.deepEqual(await one.json(), { model_name: 'square', model_version: '1', OUT: 2 });
  const bad = await fetch(`${server.url}/v2/models/square/generate_stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ NOPE: 2 }) });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /NOPE/);
});

test('statistics count each decoupled request once, as its execution', { skip: NO_NUMPY }, async () => {
  const r = await fetch(`${server.url}/v2/models/square/stats`);
  const stats = (await r.json()).model_stats[0];
  // a, b, c, f over gRPC, one generate_stream, one generate: six executions (refused ones never reach it)
  assert.equal(Number(stats.inference_stats.success.count), 6);
});

test('a decoupled model that never sends the final flag: the request fails after the timeout, the stream closes', { skip: NO_NUMPY }, async () => {
  const got = await streamAll([{ ...intIn(1, 'lost'), model_name: 'bad' }]);
  assert.equal(got.length, 2);
  assert.equal(got[0].error_message, '');
  assert.match(got[1].error_message, new RegExp(`no final response .* within 1 s \\(parameter ${FINAL_TIMEOUT_KEY}\\)`));
  // the server keeps serving the model
  const again = await streamAll([{ ...intIn(2, 'late'), model_name: 'bad' }]);
  assert.deepEqual(again.map(outOf), [2]);
  // the model's print comes on its stdout, a pipe of its own: it may arrive after the stream's answer
  await waitFor(() => logs.some((l) => /late send refused: Unable to send response. Response sender has been closed/.test(l)), "the model's late-send line in the log");
});

test('decoupled BLS: exec(decoupled=True) iterates the responses; exec() on a decoupled model is an error response', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'bls_stream', [{ name: 'IN', datatype: 'INT32', shape: [1], data: [3] }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.outputs.find((o: any) => o.name === 'OUT').data, [3, 9]);
  assert.match(r.body.outputs.find((o: any) => o.name === 'ERR').data[0], /decoupled/);
});

test('cancelling a stream stops the model\'s sender', { skip: NO_NUMPY }, async () => {
  const stream = client.raw.ModelStreamInfer();
  const ended = new Promise<void>((resolve) => {
    stream.on('error', () => resolve());
    stream.on('end', () => resolve());
  });
  let seen = 0;
  stream.on('data', () => {
    if (++seen === 3) stream.cancel();
  });
  stream.write({ ...intIn(3, 'forever'), model_name: 'bad' });
  await ended;
  for (let i = 0; i < 200 && !logs.some((l) => /sender saw the cancellation/.test(l)); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(logs.some((l) => /sender saw the cancellation/.test(l)));
});

test('the bundled token_streamer streams one token per step over generate_stream, the same text for the same prompt', { skip: NO_NUMPY }, async () => {
  const tokens = async (body: object) => {
    const r = await fetch(`${server.url}/v2/models/token_streamer/generate_stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(r.status, 200);
    return (await r.text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, '')));
  };
  const a = await tokens({ text_input: 'the server', max_tokens: 5 });
  assert.equal(a.length, 5);
  for (const e of a) assert.match(e.text_output, /^ \S+$/);
  const b = await tokens({ text_input: 'the server', max_tokens: 5 });
  assert.deepEqual(b, a);
  const bad = await tokens({ text_input: 'x', max_tokens: 9999 });
  assert.equal(bad.length, 1);
  assert.match(bad[0].error, /max_tokens must be between 0 and 256/);
});
