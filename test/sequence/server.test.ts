/**
 * Stateful models through the real server (port 0): the bundled `accumulator` (a running sum per sequence
 * in implicit state, START and READY control inputs) served by the sequence batcher over HTTP, with
 * Triton's parameters and errors, the null padding counted as Triton counts it, and GET /v2's extension.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';
import { fp32FromRaw, grpcClient } from '../grpc/client.ts';

/** an ensemble whose one step is the stateful model: Triton hands every step the request's sequence fields */
const ENSEMBLE = `name: "acc_pipeline"
platform: "ensemble"
max_batch_size: 4
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
ensemble_scheduling {
  step [ { model_name: "accumulator" model_version: -1 input_map { key: "INPUT" value: "IN" } output_map { key: "OUTPUT" value: "OUT" } } ]
}
`;

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };

before(async () => {
  repo = await tempRepository(['accumulator']); // the bundled stateful model (model_repository/accumulator)
  await mkdir(join(repo.dir, 'acc_pipeline', '1'), { recursive: true });
  await writeFile(join(repo.dir, 'acc_pipeline', 'config.pbtxt'), ENSEMBLE);
  server = await startTestServer({ modelRepositories: [repo.dir], live: false, grpcPort: 0 });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

async function step(id: number | string | undefined, value: number, flags: { start?: boolean; end?: boolean } = {}) {
  const parameters: Record<string, unknown> = {};
  if (id !== undefined) parameters.sequence_id = id;
  if (flags.start) parameters.sequence_start = true;
  if (flags.end) parameters.sequence_end = true;
  const res = await fetch(`${server.url}/v2/models/accumulator/infer`, {
    method: 'POST',
    body: JSON.stringify({ parameters, inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [value] }] }),
  });
  const body = await res.json() as { outputs?: { name: string; data: number[] }[]; error?: string };
  return { status: res.status, body, out: body.outputs?.find((o) => o.name === 'OUTPUT')?.data[0] };
}

async function stats() {
  const s = await (await fetch(`${server.url}/v2/models/accumulator/stats`)).json() as {
    model_stats: { inference_count: number; execution_count: number; batch_stats: { batch_size: number; compute_infer: { count: number } }[] }[];
  };
  return s.model_stats[0]!;
}

test("GET /v2 claims the 'sequence' extension and the stateful model is READY", async () => {
  const meta = await (await fetch(`${server.url}/v2`)).json() as { extensions: string[] };
  assert.ok(meta.extensions.includes('sequence'));
  assert.equal((await fetch(`${server.url}/v2/models/accumulator/ready`)).status, 200);
});

/** the bytes the memory ledger last showed for the accumulator's live sequence state */
function stateBytes(): number | undefined {
  for (let i = server.events.length - 1; i >= 0; i--) {
    const e = server.events[i]!;
    if (e.type !== 'memory') continue;
    const entry = e.entries.find((x) => x.model === 'accumulator' && x.instance === 'sequence_state');
    if (entry) return entry.bytes;
  }
  return undefined;
}

test('a sequence sums its inputs across requests; the state output never reaches the client; its state is in the memory ledger while it lives', async () => {
  assert.equal((await step(7, 1, { start: true })).out, 1);
  assert.equal(stateBytes(), 4, 'one FP32 of state for the live sequence');
  const mid = await step(7, 2);
  assert.equal(mid.out, 3);
  assert.deepEqual(mid.body.outputs!.map((o) => o.name), ['OUTPUT']);
  assert.equal((await step(7, 3, { end: true })).out, 6);
  assert.equal(stateBytes(), 0, 'freed at END');
  // "7" is another sequence than 7
  assert.equal((await step('7', 10, { start: true })).out, 10);
  assert.equal((await step('7', 5, { end: true })).out, 15);
  // a second START on a live id restarts it
  await step(8, 100, { start: true });
  assert.equal((await step(8, 1, { start: true })).out, 1);
  assert.equal((await step(8, 1, { end: true })).out, 2);
});

test("Triton's request errors: no START for an unknown sequence, no correlation id, a bad sequence_id", async () => {
  const lone = await step(4242, 1);
  assert.equal(lone.status, 400);
  assert.equal(lone.body.error, "inference request for sequence 4242 to model 'accumulator' must specify the START flag on the first request of the sequence");
  const none = await step(undefined, 1, { start: true });
  assert.equal(none.status, 400);
  assert.equal(none.body.error, "inference request to model 'accumulator' must specify a non-zero or non-empty correlation ID");
  const bad = await fetch(`${server.url}/v2/models/accumulator/infer`, {
    method: 'POST',
    body: JSON.stringify({ parameters: { sequence_id: -3 }, inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], data: [1] }] }),
  });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /Unable to parse 'sequence_id'/);
  const two = await fetch(`${server.url}/v2/models/accumulator/infer`, {
    method: 'POST',
    body: JSON.stringify({ parameters: { sequence_id: 9, sequence_start: true }, inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [2, 1], data: [1, 2] }] }),
  });
  assert.equal(two.status, 400);
  assert.match(await two.text(), /must specify batch-size 1 due to requirements of sequence batcher/);
});

test('sequences keep their slots; an empty slot below a busy one is a null request: batch statistics count it, inference_count does not', async () => {
  const before = await stats();
  assert.equal((await step(101, 1, { start: true })).out, 1); // slot 0
  assert.equal((await step(102, 10, { start: true })).out, 10); // slot 1: batch of 2 (a null at slot 0)
  assert.equal((await step(101, 2, { end: true })).out, 3); // slot 0 alone
  assert.equal((await step(102, 20, { end: true })).out, 30); // slot 1 again, padded
  const after = await stats();
  assert.equal(after.inference_count - before.inference_count, 4);
  assert.equal(after.execution_count - before.execution_count, 4);
  const twos = (s: typeof before) => s.batch_stats.find((b) => b.batch_size === 2)?.compute_infer.count ?? 0;
  assert.equal(twos(after) - twos(before), 2, 'the two batches of slot 1 carried a null at slot 0');
});

test('concurrent sequences share batches and each keeps its own sum; those beyond the four slots wait in the backlog', async () => {
  const ids = [201, 202, 203, 204, 205, 206];
  const before = await stats();
  // each client sends its sequence one request after another; the six clients run at once
  const sums = await Promise.all(ids.map(async (id) => {
    const outs = [(await step(id, id, { start: true })).out, (await step(id, 1)).out, (await step(id, 1, { end: true })).out];
    return outs;
  }));
  assert.deepEqual(sums, ids.map((id) => [id, id + 1, id + 2]));
  const after = await stats();
  assert.equal(after.inference_count - before.inference_count, 18);
  assert.ok(after.execution_count - before.execution_count < 18, 'some requests shared a batch');
});

test("an ensemble's steps carry its sequence fields to the stateful model", async () => {
  const call = async (value: number, parameters: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/v2/models/acc_pipeline/infer`, {
      method: 'POST',
      body: JSON.stringify({ parameters, inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 1], data: [value] }] }),
    });
    const body = await res.json() as { outputs?: { name: string; data: number[] }[]; error?: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.outputs!.find((o) => o.name === 'OUT')!.data[0];
  };
  assert.equal(await call(2, { sequence_id: 'ens-1', sequence_start: true }), 2);
  assert.equal(await call(5, { sequence_id: 'ens-1', sequence_end: true }), 7);
});

test('over gRPC: int64_param and string_param ids, bool_param flags; uint64_param refused as Triton refuses it', async () => {
  const client = grpcClient(server.grpcAddress!);
  try {
    const infer = (value: number, parameters: Record<string, object>) => client.call('ModelInfer', {
      model_name: 'accumulator', parameters,
      inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 1], contents: { fp32_contents: [value] } }],
    }).then((r) => fp32FromRaw(r.raw_output_contents[0])[0]);
    assert.equal(await infer(4, { sequence_id: { int64_param: '9007199254740993' }, sequence_start: { bool_param: true } }), 4);
    assert.equal(await infer(6, { sequence_id: { string_param: '9007199254740993' }, sequence_start: { bool_param: true } }), 6, 'the string id is another sequence');
    assert.equal(await infer(1, { sequence_id: { int64_param: '9007199254740993' }, sequence_end: { bool_param: true } }), 5, 'an id past 2^53, exact');
    assert.equal(await infer(1, { sequence_id: { string_param: '9007199254740993' }, sequence_end: { bool_param: true } }), 7);
    const refused = await infer(1, { sequence_id: { uint64_param: '5' }, sequence_start: { bool_param: true } }).then(() => null, (e) => e as { code: number; details: string });
    assert.equal(refused?.code, status.INVALID_ARGUMENT);
    assert.equal(refused?.details, "invalid value type for 'sequence_id' parameter, expected int64_param or string_param.");
  } finally {
    client.close();
  }
});
