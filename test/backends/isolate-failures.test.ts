// isolateFailures against a recording executor (no framework): a failed batch is split down to the
// request that fails alone; results that already hold a RequestFailure and a WholeBatchFailure are
// passed on as they are, without a single extra run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestFailure, type Executor, type SchedulerRequest } from '@inferscope/core';
import { WholeBatchFailure, isolateFailures } from '../../apps/server/src/backends/isolate-failures';
import { instance } from './fixtures';

type Req = SchedulerRequest<number>;
const batchOf = (values: number[]): Req[] => values.map((v, i) => ({ id: `r${i}`, payload: v, batchSize: 1 }) as unknown as Req);

/** Runs batches synchronously; `answer` decides each run's outcome. Records every run's payloads. */
function recording(answer: (values: number[]) => { error?: unknown; results?: unknown[] }) {
  const runs: number[][] = [];
  const executor: Executor<number, unknown> = {
    prefetch: 0,
    execute: () => Promise.reject(new Error('the callback form is used')),
    executeWithCallback(_info, batch, done) {
      const values = batch.map((r) => r.payload);
      runs.push(values);
      const { error, results } = answer(values);
      done(error ?? null, results);
    },
  };
  return { runs, executor: isolateFailures(executor) };
}

const run = (executor: Executor<number, unknown>, values: number[]) =>
  new Promise<{ error: unknown; results?: unknown[] }>((resolve) => executor.executeWithCallback!(instance('i0'), batchOf(values), (error, results) => resolve({ error, results })));

test('a batch failed as a whole is split until the bad request fails alone; the others are answered', async () => {
  const { runs, executor } = recording((v) => (v.includes(-1) ? { error: new Error(`bad value in ${v}`) } : { results: v.map((x) => x * 2) }));
  const { error, results } = await run(executor, [1, 2, -1, 4]);
  assert.equal(error, null);
  assert.deepEqual(results!.slice(0, 2), [2, 4]);
  assert.ok(results![2] instanceof RequestFailure);
  assert.equal(results![3], 8);
  assert.ok(runs.length > 1, 'the batch was re-run in parts');
});

test('results holding a RequestFailure go to their requests as they are: no re-run', async () => {
  const { runs, executor } = recording((v) => ({ results: v.map((x) => (x < 0 ? new RequestFailure(`value ${x} refused`, 'INVALID_ARG') : x * 2)) }));
  const { error, results } = await run(executor, [1, -1, 3]);
  assert.equal(error, null);
  assert.equal(results![0], 2);
  assert.equal((results![1] as RequestFailure).message, 'value -1 refused');
  assert.equal((results![1] as RequestFailure).httpStatus, 400);
  assert.deepEqual(runs, [[1, -1, 3]]);
});

test('a WholeBatchFailure fails the whole batch with its message and is never re-run in parts', async () => {
  const { runs, executor } = recording(() => ({ error: new WholeBatchFailure('execute() raised RuntimeError: no') }));
  const { error } = await run(executor, [1, 2, 3, 4]);
  assert.ok(error instanceof WholeBatchFailure);
  assert.equal((error as Error).message, 'execute() raised RuntimeError: no');
  assert.deepEqual(runs, [[1, 2, 3, 4]]);
});

test('a WholeBatchFailure met inside a split fails that part as a whole, without splitting it further', async () => {
  // the first run fails plainly (a pure backend's error); the half holding 3 then fails as a whole
  const { runs, executor } = recording((v) => {
    if (v.length === 4) return { error: new Error('plain') };
    if (v.includes(3)) return { error: new WholeBatchFailure('whole') };
    return { results: v.map((x) => x * 2) };
  });
  const { results } = await run(executor, [1, 2, 3, 4]);
  assert.deepEqual(results!.slice(0, 2), [2, 4]);
  assert.deepEqual(results!.slice(2).map((r) => (r as RequestFailure).message), ['whole', 'whole']);
  assert.deepEqual(runs, [[1, 2, 3, 4], [1, 2], [3, 4]]);
});
