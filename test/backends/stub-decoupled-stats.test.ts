// A request that answers many times, counted and traced through a real decoupled python model: the
// statistics count each request once (success) and each response in response_stats by its index, as
// Triton's model_statistics has them (success / empty_response / cancel with compute_infer and
// compute_output); Prometheus agrees; the bus carries one request.response per response; the trace has
// an INFER_RESPONSE timestamp per response.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestResponseEvent } from '@inferscope/core';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { NO_NUMPY, tempRepo, type TempRepo } from './stub-fixtures.ts';
import { grpcClient, type TestGrpcClient } from '../grpc/client.ts';

// n responses of [n], then the final flag alone (an empty response), from a thread; n < 0: streams until cancelled
const SQUARE_PY = `
import threading, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            n = int(pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()[0])
            threading.Thread(target=self.respond, args=(request.get_response_sender(), n), daemon=True).start()
        return None

    def respond(self, sender, n):
        i = 0
        while (i < n or n < 0) and not sender.is_cancelled():
            sender.send(pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("OUT", np.array([n], np.int32))]))
            i += 1
            time.sleep(0.005)
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
`;
const CONFIG = `name: "square"
backend: "python"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
`;

let repo: TempRepo;
let server: TestServer;
let client: TestGrpcClient;
let traceDir: string;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-dstats-');
  repo.add('square', CONFIG, { 'model.py': SQUARE_PY });
  traceDir = mkdtempSync(join(tmpdir(), 'is-dtrace-'));
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, metricsPort: 0, live: false, traceConfig: [`triton,file=${join(traceDir, 'trace.json')}`] });
  const set = await server.built.app.inject({ method: 'POST', url: '/v2/models/square/trace/setting', payload: { trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
  assert.equal(set.statusCode, 200, set.body);
  client = grpcClient(server.grpcAddress!);
});

after(async () => {
  client?.close();
  await server?.close();
  repo?.remove();
  if (traceDir) rmSync(traceDir, { recursive: true, force: true });
});

const request = (n: number, id: string) => ({
  model_name: 'square', id, inputs: [{ name: 'IN', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(new Int32Array([n]).buffer)],
});

function streamAll(requests: object[]): Promise<unknown[]> {
  const stream = client.raw.ModelStreamInfer();
  const got: unknown[] = [];
  return new Promise((resolve, reject) => {
    stream.on('data', (r: unknown) => got.push(r));
    stream.on('end', () => resolve(got));
    stream.on('error', reject);
    for (const r of requests) stream.write(r);
    stream.end();
  });
}

const responses = () => server.events.filter((e): e is RequestResponseEvent => e.type === 'request.response');

test('three streamed requests: one request.response per response, counted once per request and per response index', { skip: NO_NUMPY }, async () => {
  const got = await streamAll([request(3, 'a'), request(0, 'b'), request(2, 'c')]);
  assert.equal(got.length, 5);
  await waitFor(() => responses().filter((e) => e.final).length === 3, 'three final responses on the bus');

  const byRequest = new Map<string, RequestResponseEvent[]>();
  for (const e of responses()) byRequest.set(e.request_id, [...(byRequest.get(e.request_id) ?? []), e]);
  const shapes = [...byRequest.values()].map((list) => list.map((e) => `${e.index}:${e.outcome}${e.final ? '!' : ''}`).join(' ')).sort();
  assert.deepEqual(shapes, ['0:empty!', '0:success 1:success 2:empty!', '0:success 1:success 2:success 3:empty!']);
  // each response leaves after its request's batch started, in order
  for (const [id, list] of byRequest) {
    const started = server.events.find((e) => e.type === 'request.queued' && e.request_id === id)!.t;
    let last = started;
    for (const e of list) {
      assert.ok(e.t >= last, `response ${e.index} of ${id} after the one before`);
      last = e.t;
    }
  }

  const stats = (await (await fetch(`${server.url}/v2/models/square/stats`)).json()).model_stats[0];
  assert.equal(Number(stats.inference_stats.success.count), 3);
  const rs = stats.response_stats;
  assert.deepEqual(Object.keys(rs), ['0', '1', '2', '3']);
  const count = (k: string, f: string) => Number(rs[k][f].count);
  assert.deepEqual(['0', '1', '2', '3'].map((k) => [count(k, 'success'), count(k, 'empty_response'), count(k, 'fail'), count(k, 'cancel')]), [[2, 1, 0, 0], [2, 0, 0, 0], [1, 1, 0, 0], [0, 1, 0, 0]]);
  // every response computed; outputs read only where there were some; success = compute_infer + compute_output
  assert.deepEqual(['0', '1', '2', '3'].map((k) => count(k, 'compute_infer')), [3, 2, 2, 1]);
  assert.deepEqual(['0', '1', '2', '3'].map((k) => count(k, 'compute_output')), [2, 2, 1, 0]);
  assert.ok(Number(rs['1'].success.ns) > 0);

  // gRPC ModelStatistics serves the same map
  const g = await client.call('ModelStatistics', { name: 'square' });
  assert.equal(Number(g.model_stats[0].response_stats['0'].success.count), 2);

  // Prometheus reads the same fold: three successful requests
  const text = await (await fetch(server.metricsUrl!)).text();
  assert.match(text, /nv_inference_request_success\{model="square",version="1"\} 3\b/);
});

test('a cancelled stream ends with a final cancel response, counted as cancel at its index', { skip: NO_NUMPY }, async () => {
  const before = responses().length;
  const stream = client.raw.ModelStreamInfer();
  const ended = new Promise<void>((resolve) => {
    stream.on('error', () => resolve());
    stream.on('end', () => resolve());
  });
  let seen = 0;
  stream.on('data', () => {
    if (++seen === 2) stream.cancel();
  });
  stream.write(request(-1, 'endless'));
  await ended;
  await waitFor(() => responses().slice(before).some((e) => e.outcome === 'cancel'), 'the cancel response');
  const mine = responses().slice(before);
  const cancel = mine.find((e) => e.outcome === 'cancel')!;
  assert.equal(cancel.final, true);
  assert.equal(cancel.index, mine.filter((e) => e.request_id === cancel.request_id).length - 1, 'the cancel response is its stream\'s last');
  const rs = (await (await fetch(`${server.url}/v2/models/square/stats`)).json()).model_stats[0].response_stats;
  assert.equal(Number(rs[String(cancel.index)].cancel.count), 1);
});

test('the trace of a streamed request has an INFER_RESPONSE timestamp per response and is written after the final one', { skip: NO_NUMPY }, async () => {
  await server.built.tracer.flush();
  await waitFor(() => {
    try {
      return readFileSync(join(traceDir, 'trace.json'), 'utf8').length > 0;
    } catch {
      return false;
    }
  }, 'the trace file');
  const entries = JSON.parse(readFileSync(join(traceDir, 'trace.json'), 'utf8')) as Array<{ id: number; request_id?: string; timestamps?: Array<{ name: string; ns: number }> }>;
  const timestampsOf = (id: number) => entries.find((e) => e.id === id && e.timestamps)!.timestamps!;
  const perRequest = entries.filter((e) => e.request_id !== undefined).map((h) => timestampsOf(h.id).filter((t) => t.name === 'INFER_RESPONSE').length);
  // a: 4 responses (3 + the empty final one), b: 1, c: 3, endless: at least the two it sent before the cancel + the cancel
  assert.equal(perRequest.length, 4);
  for (const n of [1, 3, 4]) perRequest.splice(perRequest.indexOf(n), 1);
  assert.equal(perRequest.length, 1);
  assert.ok(perRequest[0]! >= 3);
  for (const e of entries.filter((x) => x.timestamps)) {
    const names = e.timestamps!.map((t) => t.name);
    assert.equal(names[0], 'REQUEST_START');
    const ns = e.timestamps!.map((t) => t.ns);
    assert.deepEqual(ns, [...ns].sort((x, y) => x - y), 'timestamps in time order');
  }
});
