/**
 * A request cancelled before its instance began it, on the VirtualClock (issue 56): its batch, held
 * behind the running one, is answered with a CANCELLED failure by the executor (as the stub executor does
 * when it takes the batch back). Every fold of the events counts each request once, as what happened to
 * it: the statistics (Triton's extension and nv_inference_request_failure), the live aggregate and the
 * load/autotune fold say one success, one failure with reason CANCELED (not BACKEND), one execution.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, InferError } from '@inferscope/core';
import { EventFold, ModelAggregator } from '@inferscope/core/stats';
import { StatsCollector } from '../../apps/server/src/stats/collector.ts';
import { Harness, PrefetchExecutor } from './helpers.ts';

test('a batch cancelled before it began: CANCELED failures, no execution, in every fold', async () => {
  const exec = new PrefetchExecutor();
  const h = new Harness({ max_batch_size: 4, dynamic_batching: { preferred_batch_size: [1], max_queue_delay_microseconds: 0 } }, exec);
  h.exec = exec;
  await h.start();
  h.send('a');
  h.clock.advance(100);
  h.send('b');
  h.clock.advance(0);
  assert.equal(exec.all.length, 2, 'b is handed to the busy instance, held behind a');
  // b's client left: the executor takes the held batch back and answers it CANCELLED, never running it
  exec.all[1].done(new InferError('CANCELLED', 'the request was cancelled before its instance began it'));
  h.clock.advance(500);
  h.exec.finish();
  h.assertAllAnsweredOnce(['a', 'b']);

  const failed = h.of('request.completed').find((e) => !e.ok)!;
  assert.equal(failed.code, 'CANCELLED');

  const collector = new StatsCollector(new EventBus());
  const live = new ModelAggregator(1_000_000, 'm', '1');
  const fold = new EventFold({ models: new Set(['m']) });
  for (const e of h.events) {
    collector.add(e);
    live.add(e);
    fold.add(e);
  }
  const [t] = collector.totals();
  assert.equal(t!.stat.inference_stats.success.count, 1);
  assert.equal(t!.stat.inference_stats.fail.count, 1);
  assert.equal(t!.stat.execution_count, 1, 'the batch that never ran is no execution');
  assert.deepEqual(t!.stat.batch_stats.map((b) => [b.batch_size, b.compute_infer.count]), [[1, 1]]);
  assert.deepEqual(t!.failures, { REJECTED: 0, CANCELED: 1, BACKEND: 0, OTHER: 0 });
  assert.deepEqual(live.snapshot(1_000).failures, { REJECTED: 0, CANCELED: 1, BACKEND: 0, OTHER: 0 });
  assert.equal(live.snapshot(1_000).totals.completed + live.snapshot(1_000).totals.failed, 2);
  assert.equal(fold.completed, 1);
  assert.equal(fold.failed, 1);
  assert.equal(fold.batches, 1);
  collector.close();
});
