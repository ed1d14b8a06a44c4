import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenarioToArrivals, findPreset } from '@inferscope/core/load/index.ts';
import { runArrivals, runPlan, summarize, percentile } from '../../apps/server/src/load/runner.ts';
import type { InferCall, InferOutcome, InferTarget } from '../../apps/server/src/load/targets.ts';

/** Answers after `serviceMs`, remembering when each call arrived. */
class FakeTarget implements InferTarget {
  readonly kind = 'inprocess' as const;
  calls: { at: number; call: InferCall }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private t0 = performance.now();
  async check() {}
  constructor(private serviceMs = 1, private failEvery = 0) {}
  async infer(call: InferCall): Promise<InferOutcome> {
    // the call's own number decides its failure (counting at completion would depend on the finishing order)
    const n = this.calls.push({ at: (performance.now() - this.t0) * 1000, call });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, this.serviceMs));
    this.inFlight--;
    if (this.failEvery && n % this.failEvery === 0) return { ok: false, status: 503, error: 'queue full' };
    return { ok: true, status: 200 };
  }
  close() {}
}

test('open loop sends each arrival at its time, at the chosen speed, and waits for every answer', async () => {
  const arrivals = Array.from({ length: 20 }, (_, i) => ({ t_us: i * 20_000, model: 'm', batch_size: 1 }));
  const target = new FakeTarget(5);
  const r = await runArrivals(target, arrivals, { speed: 2 });
  assert.equal(r.sent, 20);
  assert.equal(r.answered, 20);
  assert.equal(r.records.length, 20);
  // Timers never fire early, so no call comes before its time at speed 2 (t/2) ...
  target.calls.forEach((c, i) => assert.ok(c.at >= i * 10_000 - 500, `call ${i} at ${c.at} us, before its time ${i * 10_000} us`));
  // ... and they can fire late (a busy machine), so the spacing is judged on the median gap, which one
  // late wake-up cannot move: ~10 ms at speed 2 (20 ms would mean the speed was ignored).
  const gaps = target.calls.slice(1).map((c, i) => c.at - target.calls[i].at).sort((a, b) => a - b);
  const medianGap = gaps[Math.floor(gaps.length / 2)];
  assert.ok(medianGap > 7_000 && medianGap < 14_000, `median gap ${medianGap} us, expected ~10000 at speed 2`);
  // waits for every answer: the last call goes at 190 ms and takes a 5 ms timer (which node may fire up
  // to 1 ms early as performance.now() sees it)
  assert.ok(r.elapsed_s >= 0.19 + 0.004, `elapsed ${r.elapsed_s}`);
});

test('stopping stops sending but every request already sent is answered', async () => {
  const arrivals = Array.from({ length: 1000 }, (_, i) => ({ t_us: i * 1000, model: 'm', batch_size: 1 }));
  const target = new FakeTarget(20);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const r = await runArrivals(target, arrivals, { signal: ac.signal });
  assert.equal(r.stopped, true);
  assert.ok(r.sent > 10 && r.sent < 1000);
  assert.equal(r.answered, r.sent);
  assert.equal(target.inFlight, 0);
});

test('a plan with a closed-loop phase keeps exactly `concurrency` requests in flight and fills in the target model', async () => {
  const plan = scenarioToArrivals(findPreset('closed-loop')!, { duration_s: 0.3, concurrency: 3, model: 'mlp' });
  assert.equal(plan.closed.length, 1);
  const target = new FakeTarget(5, 4);
  const r = await runPlan(target, plan, { model: 'mlp' });
  assert.equal(target.maxInFlight, 3);
  assert.ok(r.sent > 20);
  assert.equal(r.answered, r.sent);
  assert.ok(target.calls.every((c) => c.call.model === 'mlp'));
  const s = summarize(r);
  assert.equal(s.errors, Math.floor(r.sent / 4));
  assert.deepEqual(Object.keys(s.errors_by_status), ['503']);
  assert.ok(s.latency_us.p50 >= 5000 && s.latency_us.p99 >= s.latency_us.p50);
});

test('percentile is nearest-rank', () => {
  const xs = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(xs, 50), 50);
  assert.equal(percentile(xs, 99), 99);
  assert.equal(percentile(xs, 100), 100);
  assert.equal(percentile([], 50), 0);
});

test("the run's version goes with the run's model only; an arrival's own version wins", async () => {
  const arrivals = [
    { t_us: 0, model: '', batch_size: 1 },
    { t_us: 0, model: 'mlp', batch_size: 1 },
    { t_us: 0, model: 'other', batch_size: 1 },
    { t_us: 0, model: 'mlp', version: '3', batch_size: 1 },
  ];
  const target = new FakeTarget(1);
  await runArrivals(target, arrivals, { model: 'mlp', version: '1' });
  assert.deepEqual(target.calls.map((c) => `${c.call.model}@${c.call.version ?? 'latest'}`), ['mlp@1', 'mlp@1', 'other@latest', 'mlp@3']);
});
