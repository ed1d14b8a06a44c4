import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@inferscope/core/clock';
import { planArrivals, findPreset, DEFAULT_LOAD_LIMITS, type Arrival } from '@inferscope/core/load';
import { runLoad, runPlan, type RunResult } from '../../apps/server/src/loadgen/runner.ts';
import type { InferCall, InferOutcome, InferTarget } from '../../apps/server/src/loadgen/targets.ts';

/** Answers `serviceUs` later on the virtual clock, remembering when each call arrived. */
class FakeTarget implements InferTarget {
  readonly kind = 'inprocess' as const;
  calls: { at: number; call: InferCall }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  async check() {}
  constructor(private clock: VirtualClock, private serviceUs = 1000, private failEvery = 0) {}
  infer(call: InferCall): Promise<InferOutcome> {
    // the call's own number decides its failure (counting at completion would depend on the finishing order)
    const n = this.calls.push({ at: this.clock.now(), call });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise((resolve) =>
      this.clock.setTimer(this.clock.now() + this.serviceUs, () => {
        this.inFlight--;
        resolve(this.failEvery && n % this.failEvery === 0 ? { ok: false, status: 503, error: 'queue full' } : { ok: true, status: 200 });
      }),
    );
  }
  close() {}
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Lets the run's promises settle, then fires the next virtual timer, until the run ends. No real waiting. */
async function drive(clock: VirtualClock, run: Promise<RunResult>, onTimer?: () => void): Promise<RunResult> {
  let result: RunResult | undefined;
  void run.then((r) => (result = r));
  for (let idle = 0; result === undefined; ) {
    await turn();
    if (result !== undefined) break;
    if (clock.step()) {
      idle = 0;
      onTimer?.();
    } else if (++idle > 100) throw new Error('the run is waiting on nothing');
  }
  return result;
}

const arrivalsEvery = (n: number, gapUs: number, model = 'm'): Arrival[] => Array.from({ length: n }, (_, i) => ({ t_us: i * gapUs, model, batch_size: 1 }));

test('open loop sends each arrival exactly at its time at the chosen speed, with no send lag, and waits for every answer', async () => {
  const clock = new VirtualClock(5_000_000);
  const target = new FakeTarget(clock, 5_000);
  const r = await drive(clock, runLoad(target, { open: arrivalsEvery(20, 20_000).values() }, { clock, speed: 2 }));
  assert.deepEqual(target.calls.map((c) => c.at - 5_000_000), Array.from({ length: 20 }, (_, i) => i * 10_000));
  assert.equal(r.sent, 20);
  assert.equal(r.answered, 20);
  assert.equal(r.summary.ok, 20);
  assert.equal(r.client.send_lag_us.max, 0);
  assert.equal(r.elapsed_s, 0.195, 'the last send at 190 ms plus its 5 ms answer');
  assert.ok(Math.abs(r.client.latency_us.p50 - 5000) <= 50, `p50 ${r.client.latency_us.p50} (1% histogram buckets)`);
});

test('send lag is scheduled vs actual send time: a source that falls 3 ms behind shows it', async () => {
  const clock = new VirtualClock();
  const target = new FakeTarget(clock, 100);
  // an async source that takes 13 ms of (virtual) time to read the arrival due at 500 ms, asked for at 490 ms:
  // it goes out 3 ms late (the later ones are on time again)
  async function* slow() {
    for (const a of arrivalsEvery(100, 10_000)) {
      if (a.t_us === 500_000) await new Promise<void>((r) => clock.setTimer(clock.now() + 13_000, r));
      yield a;
    }
  }
  const r = await drive(clock, runLoad(target, { open: slow() }, { clock }));
  assert.equal(r.sent, 100);
  assert.ok(Math.abs(r.client.send_lag_us.max - 3000) <= 30, `max lag ${r.client.send_lag_us.max}`);
  assert.ok(r.client.send_lag_us.p50 <= 1, "the others on time (the histogram's first bucket is <= 1 us)");
});

test('stopping stops sending but every request already sent is answered', async () => {
  const clock = new VirtualClock();
  const target = new FakeTarget(clock, 20_000);
  const ac = new AbortController();
  const r = await drive(clock, runLoad(target, { open: arrivalsEvery(1000, 1000).values() }, { clock, signal: ac.signal }), () => {
    if (clock.now() >= 100_000) ac.abort();
  });
  assert.equal(r.stopped, true);
  assert.equal(r.sent, 100, 'the arrivals before 100 ms: the stop came with the timer of the one at 100 ms');
  assert.equal(r.answered, r.sent);
  assert.equal(target.inFlight, 0);
});

test('a plan with a closed-loop phase keeps exactly `concurrency` requests in flight and fills in the target model', async () => {
  const clock = new VirtualClock();
  const plan = planArrivals(findPreset('closed-loop')!, { duration_s: 0.3, concurrency: 3, model: 'mlp' });
  assert.equal(plan.closed.length, 1);
  const target = new FakeTarget(clock, 5_000, 4);
  const r = await drive(clock, runPlan(target, plan, { clock, model: 'mlp' }));
  assert.equal(target.maxInFlight, 3);
  assert.equal(r.sent, 180, '3 clients x one request every 5 ms for 300 ms');
  assert.equal(r.answered, r.sent);
  assert.ok(target.calls.every((c) => c.call.model === 'mlp'));
  assert.equal(r.summary.errors, 45);
  assert.deepEqual(Object.keys(r.summary.errors_by_status), ['503']);
  assert.deepEqual(r.summary.first_error_by_status, { 503: 'queue full' }, 'what the errors were, once per status');
});

test('bounded: past max_in_flight arrivals are skipped and counted; at max_requests_per_run the run stops', async () => {
  const clock = new VirtualClock();
  const slow = new FakeTarget(clock, 100_000);
  const limits = { max_in_flight: 10, max_requests_per_run: 1_000_000 };
  const r = await drive(clock, runLoad(slow, { open: arrivalsEvery(50, 1000).values() }, { clock, limits }));
  assert.equal(slow.maxInFlight, 10);
  assert.equal(r.sent, 10);
  assert.equal(r.skipped, 40);
  assert.equal(r.answered, 10);

  // 360 million arrivals: read lazily, stopped at the total, in fixed memory
  const huge = planArrivals(findPreset('poisson')!, { rate: 100_000, duration_s: 3600, model: 'm' });
  const fast = new FakeTarget(clock, 10);
  const t = await drive(clock, runPlan(fast, huge, { clock, limits: { ...DEFAULT_LOAD_LIMITS, max_requests_per_run: 2_000 } }));
  assert.equal(t.truncated, true);
  assert.equal(t.sent, 2_000);
  assert.equal(t.answered, 2_000);
});

test("the run's version goes with the run's model only; an arrival's own version wins", async () => {
  const clock = new VirtualClock();
  const arrivals: Arrival[] = [
    { t_us: 0, model: '', batch_size: 1 },
    { t_us: 0, model: 'mlp', batch_size: 1 },
    { t_us: 0, model: 'other', batch_size: 1 },
    { t_us: 0, model: 'mlp', version: '3', batch_size: 1 },
  ];
  const target = new FakeTarget(clock, 1);
  await drive(clock, runLoad(target, { open: arrivals.values() }, { clock, model: 'mlp', version: '1' }));
  assert.deepEqual(target.calls.map((c) => `${c.call.model}@${c.call.version ?? 'latest'}`), ['mlp@1', 'mlp@1', 'other@latest', 'mlp@3']);
});

test('a source that fails mid-run stops every loop of the run; the requests already sent are still answered and counted', async () => {
  const clock = new VirtualClock();
  const target = new FakeTarget(clock, 2_000);
  function* broken() {
    for (let i = 0; i < 5; i++) yield { t_us: i * 1000, model: 'm', batch_size: 1 };
    throw new Error('line 7: t_us goes back in time');
  }
  const plan = planArrivals(findPreset('closed-loop')!, { duration_s: 10, concurrency: 2, model: 'm' });
  const r = await drive(clock, runLoad(target, { open: broken(), closed: plan.closed, sampler: plan.sampler }, { clock, model: 'm' }));
  assert.equal(r.error, 'line 7: t_us goes back in time');
  assert.equal(r.stopped, true);
  assert.equal(r.answered, r.sent);
  assert.ok(r.sent >= 5 && r.sent < 20, `${r.sent} sent: the closed loop stopped with the failure, not after 10 s`);
  assert.ok(clock.now() < 100_000);
});
