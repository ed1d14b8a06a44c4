/**
 * Where simulated and real differ, case by case: the same trace through the real server and `simulate`,
 * both described from the scheduler's events (batch compute time per size, how late delay batches leave,
 * arrival lag, the latency split).
 *
 *   node --import tsx bench/sim-fidelity/diagnose.ts [--seconds 3] [--case N]
 */
import type { SchedulerEvent } from '@inferscope/core';
import { scenarioToArrivals, type Scenario } from '@inferscope/core/load';
import { bundledCalibration, percentile } from '@inferscope/core/sim';
import { calibrateWithHost } from '../calibration/calibrate';
import { measureTimerProfile } from '../calibration/timer-probe';
import { measureEffectiveCores } from '../calibration/cores-probe';
import { measureStallProfile } from '../calibration/stall-probe';
import { simulateCase } from './sim-side';
import { arg } from '../args';
import { CASES, REPO, realRun, silencesUs, type Case } from './real-run';

const seconds = Number(arg('--seconds', '3'));
const only = arg('--case', '');
const without = new Set(arg('--without', '').split(',').filter(Boolean));
const timer = await measureTimerProfile();

const q = (xs: number[]) => {
  const s = Float64Array.from(xs).sort();
  return `n=${s.length} p10 ${percentile(s, 0.1).toFixed(0)} p50 ${percentile(s, 0.5).toFixed(0)} p90 ${percentile(s, 0.9).toFixed(0)} p99 ${percentile(s, 0.99).toFixed(0)} max ${(s[s.length - 1] ?? 0).toFixed(0)}`;
};

function describe(label: string, c: Case, events: SchedulerEvent[], arrivalsUs: number[]): void {
  const bySize = new Map<number, number[]>();
  const lateDelay: number[] = [];
  const immediateWait: number[] = [];
  const triggers = new Map<string, number>();
  const queued: number[] = [];
  const split: number[] = [];
  const queueUs: number[] = [];
  const totalUs: number[] = [];
  const gaps: number[] = [];
  const lastDone = new Map<string, number>();
  let prefetched = 0;
  for (const e of events) {
    if (e.type === 'batch.completed') {
      (bySize.get(e.size) ?? bySize.set(e.size, []).get(e.size)!).push(e.compute_us);
      lastDone.set(e.instance, e.t);
    } else if (e.type === 'batch.started') {
      const prev = lastDone.get(e.instance);
      if (prev !== undefined) gaps.push(e.t - prev);
      if (e.prefetched) prefetched++; // began without a hand-off
    } else if (e.type === 'batch.formed') {
      triggers.set(e.trigger, (triggers.get(e.trigger) ?? 0) + 1);
      if (e.trigger === 'delay') lateDelay.push(e.oldest_wait_us - c.delayUs);
      if (e.trigger === 'immediate') immediateWait.push(e.oldest_wait_us);
    } else if (e.type === 'request.queued') queued.push(e.t);
    else if (e.type === 'request.completed') {
      split.push(e.total_us - e.queue_us - e.compute_us);
      queueUs.push(e.queue_us);
      totalUs.push(e.total_us);
    }
  }
  const silences = silencesUs(events);
  const t0 = queued[0] ?? 0;
  const lag = queued.map((t, i) => t - t0 - (arrivalsUs[i] - arrivalsUs[0]));
  console.log(`  ${label}: triggers ${JSON.stringify(Object.fromEntries(triggers))}, prefetched ${prefetched}`);
  const cal = bundledCalibration(c.model)!.table_us; // the shipped table, for reference
  for (const [size, xs] of [...bySize.entries()].sort((a, b) => a[0] - b[0])) {
    if (xs.length < 20) continue;
    console.log(`    compute b${size} (table ${cal[String(size)] ?? '-'}): ${q(xs)}`);
  }
  if (lateDelay.length) console.log(`    delay batches, wait beyond the delay: ${q(lateDelay)}`);
  if (immediateWait.length) console.log(`    immediate batches, oldest wait: ${q(immediateWait)}`);
  console.log(`    idle gap completed->next started: ${q(gaps)}`);
  console.log(`    arrival lag: ${q(lag)}`);
  console.log(`    silences over 5 ms between events: ${silences.length ? q(silences) : 'none'}, ${(silences.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} ms in all`);
  console.log(`    total - queue - compute: ${q(split)}`);
  console.log(`    queue: ${q(queueUs)}`);
  console.log(`    total: ${q(totalUs)}`);
}

for (const [i, c] of CASES.entries()) {
  if (only !== '' && Number(only) !== i) continue;
  const scenario: Scenario = { name: c.name, seed: 7, phases: [{ type: 'poisson', rate: c.rate, duration_s: seconds }] };
  const plan = scenarioToArrivals(scenario, { model: c.model });
  const arrivalsUs = plan.arrivals.map((a) => a.t_us);
  console.log(`case ${i}: ${c.name} (${c.rate}/s)`);
  const { cal, host } = await calibrateWithHost(REPO, c.model, { seqLen: 16, minMs: 150, timer, mainThread: false, session: false });
  const cores = await measureEffectiveCores();
  const stalls = await measureStallProfile();
  const real = await realRun(c, plan.arrivals);
  console.log(`  cores ${cores}, main ${real.main.us_per_request} µs/req, gc ${JSON.stringify(real.main.gc)}, stalls ${JSON.stringify(stalls)}, table ${JSON.stringify(cal.table_us)}, spin wake ${JSON.stringify(host.spin_wake_us)}`);
  describe('real', c, real.events, arrivalsUs);
  const sim = simulateCase(c, scenario, cal, { cores, mainUsPerRequest: real.main.us_per_request, timer, stalls, gc: real.main.gc, wake: { spin_wake_us: host.spin_wake_us, answer_wake_us: host.answer_wake_us } }, without, true);
  describe('sim ', c, sim.events, arrivalsUs);
}
