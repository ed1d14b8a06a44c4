// Statistics after a cancellation storm (issue 56), on the real server with a real python stub: many
// clients leave while their requests are queued, formed into a batch held behind the running one, or
// running. Every request is counted once, as what happened to it: success + fail equals the requests
// answered, success equals the requests execute() returned answers for (the model counts them itself),
// a request cancelled before its instance began it is a failure with reason CANCELED (Triton's
// nv_inference_request_failure{reason="CANCELED"}), never a success and never BACKEND (this model's
// execute() never fails), and a batch that never ran is no execution.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { NO_NUMPY, tempRepo, type TempRepo } from './stub-fixtures.ts';

// counts the requests its execute() answers (one line per batch, appended before it returns), slowly
// enough that batches queue behind the running one
const COUNTING_PY = `
import os, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.seen = os.path.join(args["model_repository"], "seen")

    def execute(self, requests):
        time.sleep(0.015)
        with open(self.seen, "a") as f:
            f.write("%d\\n" % len(requests))
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", pb_utils.get_input_tensor_by_name(r, "IN").as_numpy())]) for r in requests]
`;
const COUNTING_CONFIG = `name: "counting"
backend: "python"
max_batch_size: 4
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
dynamic_batching { max_queue_delay_microseconds: 2000 }
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

// the same, holding each execute() while a file named `hold` exists in its model folder: a test holds a
// request running, deterministically, and lets it go by removing the file
const GATE_PY = COUNTING_PY.replace('        time.sleep(0.015)\n', '        while os.path.exists(os.path.join(os.path.dirname(self.seen), "hold")):\n            time.sleep(0.01)\n');
const GATE_CONFIG = `name: "gate"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

let repo: TempRepo;
let server: TestServer;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-storm-');
  repo.add('counting', COUNTING_CONFIG, { 'model.py': COUNTING_PY });
  repo.add('gate', GATE_CONFIG, { 'model.py': GATE_PY });
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: null, metricsPort: 0 });
});

after(async () => {
  await server?.close();
  repo?.remove();
});

const REQUESTS = 160;

async function stats(model = 'counting'): Promise<any> {
  const r = await fetch(`${server.url}/v2/models/${model}/stats`);
  return (await r.json()).model_stats[0];
}

/** the events of `model` of one type */
const eventsOf = (model: string, type: string) => server.events.filter((e) => e.type === type && e.type !== 'memory' && e.model === model);

/** nv_inference_request_failure of `model` by reason, from /metrics */
async function failures(model = 'counting'): Promise<Record<string, number>> {
  const text = await (await fetch(server.metricsUrl!)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('nv_inference_request_failure{') || !line.includes(`model="${model}"`)) continue;
    out[/reason="([A-Z]+)"/.exec(line)![1]!] = Number(line.split(' ').pop());
  }
  return out;
}

test('a cancellation storm: every request counted once, as what happened to it', { skip: NO_NUMPY, timeout: 120_000 }, async () => {
  const seenFile = join(repo.dir, 'counting', 'seen');
  // every third client stays; the others leave after 20..520 ms: in the queue, held behind the running
  // batch, or while their batch runs
  const outcomes = await Promise.all(Array.from({ length: REQUESTS }, async (_, i) => {
    const abort = new AbortController();
    const leave = i % 3 === 0 ? undefined : setTimeout(() => abort.abort(), 20 + ((i * 37) % 500));
    try {
      const r = await fetch(`${server.url}/v2/models/counting/infer`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, signal: abort.signal,
        body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 1], data: [i] }] }),
      });
      await r.arrayBuffer();
      return r.status === 200 ? 'ok' : 'error';
    } catch {
      return 'left';
    } finally {
      clearTimeout(leave);
    }
  }));
  // the requests that reached the model (a client leaving at once may not have sent its request), each
  // to its end there (answered, also to a client that left)
  const mine = (type: string) => eventsOf('counting', type).filter((e) => e.type !== 'request.rejected' || e.queued_us !== undefined).length;
  const arrived = mine('request.queued');
  await waitFor(() => mine('request.completed') + mine('request.rejected') === arrived, `${arrived} requests of model 'counting' to end`);
  const s = await stats();
  const seen = readFileSync(seenFile, 'utf8').trim().split('\n').reduce((a, n) => a + Number(n), 0);
  const executions = readFileSync(seenFile, 'utf8').trim().split('\n').length;
  const stayed = outcomes.filter((o) => o === 'ok').length;
  const success = s.inference_stats.success.count;
  const fail = s.inference_stats.fail.count;
  assert.ok(outcomes.filter((o) => o === 'left').length > REQUESTS / 3, `the storm left too few: ${JSON.stringify(outcomes)}`);
  assert.ok(arrived > REQUESTS / 2, `too few requests reached the model: ${arrived}`);
  assert.equal(success + fail, arrived, 'every request counted once');
  assert.equal(success, seen, 'success is what execute() answered');
  assert.ok(success >= stayed, 'the clients that stayed all succeeded');
  assert.ok(fail > 0, 'some requests were cancelled before they ran');
  assert.equal(s.execution_count, executions, 'executions are the batches execute() ran');
  assert.equal(s.inference_count, seen);
  const batchSum = s.batch_stats.reduce((a: number, b: any) => a + b.batch_size * b.compute_infer.count, 0);
  assert.equal(batchSum, seen, 'batch_stats hold only batches that ran');
  // Triton's reasons: each failure here is a cancellation (execute() never fails)
  const reasons = await failures();
  assert.deepEqual(reasons, { REJECTED: 0, CANCELED: fail, BACKEND: 0, OTHER: 0 });
});

test('a request whose client left while it was held behind the running one: CANCELED, no execution', { skip: NO_NUMPY, timeout: 60_000 }, async () => {
  const dir = join(repo.dir, 'gate');
  writeFileSync(join(dir, 'hold'), '');
  const send = (i: number, signal?: AbortSignal) => fetch(`${server.url}/v2/models/gate/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, signal,
    body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [i] }] }),
  });
  const gate = (type: string) => eventsOf('gate', type);
  const running = send(1);
  await waitFor(() => gate('batch.started').length === 1, 'the first request to run');
  const abort = new AbortController();
  const held = send(2, abort.signal).catch(() => 'left');
  // the second is handed to the busy instance (its stub holds it behind the running one)
  await waitFor(() => gate('batch.started').length === 1 && gate('batch.formed').length === 2, 'the second request to be formed into a batch');
  abort.abort();
  await held;
  await waitFor(() => gate('request.completed').length + gate('request.rejected').length === 1, 'the second request to end');
  rmSync(join(dir, 'hold'));
  assert.equal((await running).status, 200);
  await waitFor(() => gate('request.completed').length + gate('request.rejected').length === 2, 'both requests to end');
  const second = gate('request.completed').find((e) => e.type === 'request.completed' && !e.ok);
  assert.ok(second && second.type === 'request.completed', JSON.stringify(gate('request.completed')));
  assert.equal(second.code, 'CANCELLED');
  assert.match(second.error ?? '', /cancelled before its instance began it/);
  const s = await stats('gate');
  assert.equal(s.inference_stats.success.count, 1);
  assert.equal(s.inference_stats.fail.count, 1);
  assert.equal(s.execution_count, 1, 'the batch that never ran is no execution');
  assert.equal(readFileSync(join(dir, 'seen'), 'utf8'), '1\n', 'execute() saw the first request only');
  assert.deepEqual(await failures('gate'), { REJECTED: 0, CANCELED: 1, BACKEND: 0, OTHER: 0 });
});
