/**
 * One fold decision under max_queue_size overload, on the virtual clock: a ModelScheduler with a queue of
 * two and a slow executor refuses most arrivals at the door (queue full), times some out in the queue,
 * fails some batches and loses one request to its client. The same event stream goes to every fold that
 * shows or reports figures:
 * - the server's statistics collector, which feeds the statistics extension and nv_inference_request_failure;
 * - core's ModelAggregator, the dashboard's figures (and the failures panel's rates, drawn by the web app);
 * - teaching mode's SimStats.
 * Failures must agree by reason (a refusal before queueing is none, as in Triton), pending must agree, and
 * teaching's aggregates must be the dashboard's for the same window.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, FAILURE_REASONS, type StatsMessage } from '@inferscope/core';
import { AggregatorSet } from '@inferscope/core/stats';
import type { Executor, InstanceInfo, SchedulerRequest } from '@inferscope/core/scheduler';
import { StatsCollector } from '../../apps/server/src/stats/collector.ts';
import { inferenceFamilies } from '../../apps/server/src/metrics/inference-metrics.ts';
import { failureRates, pendingOf } from '../../apps/web/src/charts/series.ts';
import { SimStats } from '../../apps/web/src/teach/sim-stats.ts';
import { Harness, tick } from './helpers.ts';

/** 5 ms a batch, on the virtual clock; every 5th batch fails (a backend error). */
function slowExecutor(h: { clock: Harness['clock'] }): Executor<string, string> {
  let batches = 0;
  return {
    execute: () => Promise.reject(new Error('callback form expected')),
    executeWithCallback(_i: InstanceInfo, reqs: readonly SchedulerRequest<string>[], done) {
      const n = ++batches;
      h.clock.setTimer(h.clock.now() + 5_000, () => (n % 5 === 0 ? done(new Error('backend failed')) : done(null, reqs.map((r) => r.payload))));
    },
  };
}

test('under queue-full overload the dashboard, teaching mode and nv_inference_request_failure count the same failures and pending', async () => {
  const config = {
    max_batch_size: 4,
    dynamic_batching: {
      max_queue_delay_microseconds: 1_000,
      default_queue_policy: { max_queue_size: 2, timeout_action: 'REJECT' as const, default_timeout_microseconds: 4_000, allow_timeout_override: true },
    },
    instance_group: [{ name: 'g', count: 1 }],
  };
  const shared = { clock: undefined as unknown as Harness['clock'] };
  const h = new Harness(config, slowExecutor(shared));
  shared.clock = h.clock;
  await h.start();

  const WINDOW = 20_000;
  const collector = new StatsCollector(new EventBus());
  const dashboard = new AggregatorSet(WINDOW);
  const teaching = new SimStats(WINDOW);
  let fed = 0;
  const feed = () => {
    for (; fed < h.events.length; fed++) {
      const e = h.events[fed];
      collector.add(e);
      dashboard.add(e);
      teaching.add(e);
    }
  };

  const messages: StatsMessage[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 400; i++) {
    // a few requests ask for a shorter timeout than the queue's: they are refused after they were queued
    ids.push(h.send(`r${i}`, i % 7 === 0 ? { timeoutUs: 500 } : {}));
    if (i === 201) {
      // a client leaves while its request is queued: CANCELED
      const waiting = h.of('request.queued').map((e) => e.request_id).filter((id) => !h.outcomes.has(id)).at(-1)!;
      assert.ok(h.sched.cancel(waiting), `${waiting} was queued`);
    }
    h.clock.advance(250);
    await tick();
    feed();
    if (i % 20 === 19) {
      const t = h.clock.now();
      const fromDashboard = dashboard.snapshot(t);
      // teaching's aggregates are the dashboard's, figure for figure, over the same window
      assert.deepEqual(teaching.snapshot(t).models, fromDashboard, `teaching vs dashboard at ${t}`);
      messages.push({ t, wall_ms: 0, models: fromDashboard });
      // pending: the dashboard's queue depth is nv_inference_pending_request_count
      assert.equal(pendingOf(fromDashboard[0]), collector.totals()[0].pending, `pending at ${t}`);
    }
  }
  h.clock.advance(100_000);
  await tick();
  feed();
  h.assertAllAnsweredOnce(ids);

  const t = h.clock.now();
  const shown = dashboard.snapshot(t)[0];
  const [row] = collector.totals();
  const metric = inferenceFamilies(collector).find((f) => f.name === 'nv_inference_request_failure')!;
  const metricBy = Object.fromEntries(FAILURE_REASONS.map((r) => [r, metric.samples.find((s) => s.labels.reason === r)!.value]));

  const refusedAtDoor = h.of('request.rejected').filter((e) => e.queued_us === undefined).length;
  const queueFull = h.of('request.rejected').filter((e) => e.reason === 'queue_full').length;
  assert.ok(queueFull > 100 && refusedAtDoor === queueFull, `overload refused ${queueFull} at the door`);
  assert.ok(metricBy.REJECTED > 0 && metricBy.BACKEND > 0 && metricBy.CANCELED === 1, `failures ${JSON.stringify(metricBy)}`);

  // the failures panel's totals are nv_inference_request_failure's, reason by reason; queue-full refusals are in neither
  assert.deepEqual(shown.failures, metricBy);
  const failures = FAILURE_REASONS.reduce((n, r) => n + metricBy[r], 0);
  assert.equal(shown.totals.failed, failures);
  assert.equal(row.stat.inference_stats.fail.count, failures, 'the statistics extension counts the same failures');
  assert.equal(shown.totals.completed, row.stat.inference_stats.success.count);
  assert.equal(shown.totals.rejected, h.of('request.rejected').length, 'rejected still shows every refusal');
  assert.equal(shown.totals.completed + shown.totals.failed + refusedAtDoor, ids.length, 'every request is a success, a failure or refused at the door');
  assert.equal(pendingOf(shown), row.pending);
  assert.equal(pendingOf(shown), 0);

  // what the failures panel draws: its rates add up to the failures between the first and last message
  const first = messages[0].models[0].failures!;
  const last = messages.at(-1)!.models[0].failures!;
  const rates = failureRates(messages, 'm:1');
  for (const r of FAILURE_REASONS) {
    const drawn = rates.reduce((n, x, i) => n + x.perS[r] * ((x.t - messages[i].t) / 1e6), 0);
    assert.ok(Math.abs(drawn - (last[r] - first[r])) < 1e-6, `${r}: drawn ${drawn}, counted ${last[r] - first[r]}`);
  }
  assert.deepEqual(teaching.snapshot(t).models, dashboard.snapshot(t));
});
