/**
 * CPU a generator thread spends keeping its schedule, per clock: core's RealClock (short waits re-checked
 * every event-loop turn) vs the generator's PacedClock (short waits sleep in Atomics.wait slices). The
 * same seeded Poisson stream, sent to a target that answers at once, so what is measured is the pacing.
 *
 *   node --import tsx bench/loadgen/clock-cpu.ts [--rate 800] [--seconds 3]
 */
import { RealClock, type Clock } from '@inferscope/core/clock';
import { findPreset, planArrivals } from '@inferscope/core/load';
import { runPlan } from '../../apps/server/src/loadgen/runner';
import { PacedClock } from '../../apps/server/src/loadgen/generator/paced-clock';
import type { InferTarget } from '../../apps/server/src/loadgen/targets';
import { arg } from '../args';

const rate = Number(arg('--rate', '800'));
const seconds = Number(arg('--seconds', '3'));
const instant: InferTarget = { kind: 'inprocess', check: async () => {}, infer: async () => ({ ok: true, status: 200 }), close: () => {} };

async function measure(name: string, clock: Clock) {
  const plan = planArrivals(findPreset('poisson')!, { rate, duration_s: seconds, seed: 7, model: 'm' });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runPlan(instant, plan, { clock, model: 'm' });
  const cpu = process.cpuUsage(cpu0);
  const wall = (performance.now() - t0) / 1000;
  const share = (cpu.user + cpu.system) / 1e6 / wall;
  console.log(`| ${name} | ${r.sent} | ${(share * 100).toFixed(1)}% | ${(r.summary.send_lag_us.p50 / 1000).toFixed(2)} / ${(r.summary.send_lag_us.p99 / 1000).toFixed(2)} |`);
  return share;
}

console.log(`pacing ${rate} req/s Poisson for ${seconds} s (target answers at once)`);
console.log('| clock | sent | CPU of one core | send lag p50 / p99 (ms) |');
console.log('|---|---|---|---|');
const real = await measure('RealClock (yield loop)', new RealClock());
const paced = await measure('PacedClock (Atomics.wait slices)', new PacedClock());
console.log(`CPU ratio paced / real: ${(paced / real).toFixed(2)}`);
