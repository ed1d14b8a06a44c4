/**
 * Where the real server's latency goes, for one case: the trace replayed as the fidelity bench does, with
 * each onnxruntime run timed on both sides of the worker boundary (a bench-only wrapper around
 * InstanceWorker.runWithCallback), so a batch's compute_us splits into the worker's own work (tensors,
 * session.run, outputs) and the round trip around it (posting, the worker waking, the answer waiting for
 * the main thread). Also the send lag of every arrival against its schedule.
 *
 *   node --import tsx bench/sim-fidelity/decompose.ts [--seconds 3] [--case N]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { scenarioToArrivals, type Scenario } from '@inferscope/core/load';
import { percentile } from '@inferscope/core/sim';
import { RealClock } from '@inferscope/core/clock';
import { InstanceWorker } from '../../apps/server/src/backends/onnxruntime/instance-worker';
import { arg } from '../args';
import { CASES, realRun } from './real-run';

const seconds = Number(arg('--seconds', '3'));
const c = CASES[Number(arg('--case', '0'))];

interface Run { worker: InstanceWorker; spunBefore: boolean; fromTimeout: boolean; posted: number; answered: number; worker_us: number; session_us: number; behind: number; rx?: number; tx?: number; spinning?: boolean }

// Which RealClock waits are turn-checked (under 1 ms when armed): while one is pending the main thread spins.
const turning = new Set<object>();
const rcProto = RealClock.prototype as unknown as { setTimer(at: number, fn: () => void): object; clearTimer(h: object): void };
const setTimer = rcProto.setTimer;
const clearTimer = rcProto.clearTimer;
rcProto.setTimer = function (this: RealClock, at: number, fn: () => void) {
  const fine = at - this.now() < 1000;
  const token = {};
  if (fine) turning.add(token);
  const h = setTimer.call(this, at, () => {
    turning.delete(token);
    if (fine) lastFineFired = performance.now();
    else lastCoarseFired = performance.now();
    fn();
  });
  if (fine) tokens.set(h, token);
  return h;
};
const tokens = new WeakMap<object, object>();
/** when a turn-checked wait last fired: a post within 50 µs of it (its callback, or the promise it resolved) followed a spin */
let lastFineFired = -Infinity;
/** when a sleeping (setTimeout) wait last fired */
let lastCoarseFired = -Infinity;
rcProto.clearTimer = function (this: RealClock, h: object) {
  const t = tokens.get(h);
  if (t) turning.delete(t);
  clearTimer.call(this, h);
};
const abs = new Map<number, { rx: number; tx: number }>();
const proto = InstanceWorker.prototype as unknown as { onMessage(m: Record<string, unknown>): void };
const onMessage = proto.onMessage;
proto.onMessage = function (m) {
  if (m.type === 'result' && typeof m.rxAbs === 'number') abs.set(m.id as number, { rx: m.rxAbs - performance.timeOrigin, tx: (m.txAbs as number) - performance.timeOrigin });
  onMessage.call(this, m);
};
const runs: Run[] = [];
let recording = false;
const inFlight = new WeakMap<InstanceWorker, number>();
const original = InstanceWorker.prototype.runWithCallback;
InstanceWorker.prototype.runWithCallback = function (this: InstanceWorker, feeds, fetches, done) {
  const posted = performance.now();
  const spunBefore = posted - lastFineFired < 0.05 || turning.size > 0;
  const fromTimeout = posted - lastCoarseFired < 0.05;
  const behind = inFlight.get(this) ?? 0;
  inFlight.set(this, behind + 1);
  let id = 0;
  let spinning: boolean | undefined;
  // after this turn's work: the load driver arms its next send a few microtasks after the post
  setImmediate(() => (spinning = turning.size > 0));
  id = original.call(this, feeds, fetches, (err, r) => {
    inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    if (recording && r) {
      const w = r.computeUs + (r.phases?.inputUs ?? 0) + (r.phases?.outputUs ?? 0);
      runs.push({ worker: this, spunBefore, fromTimeout, posted, answered: performance.now(), worker_us: w, session_us: r.computeUs, behind, spinning, ...abs.get(id) });
    }
    abs.delete(id);
    done(err, r);
  });
  return id;
};

const q = (xs: number[]) => {
  const s = Float64Array.from(xs).sort();
  return `n=${s.length} p10 ${percentile(s, 0.1).toFixed(0)} p50 ${percentile(s, 0.5).toFixed(0)} p90 ${percentile(s, 0.9).toFixed(0)} p99 ${percentile(s, 0.99).toFixed(0)} max ${(s[s.length - 1] ?? 0).toFixed(0)}`;
};

const gc: PerformanceEntry[] = [];
new PerformanceObserver((l) => gc.push(...l.getEntries())).observe({ entryTypes: ['gc'] });
/** per-thread CPU ticks (utime + stime, 1/100 s) from /proc: who used the cores during the replay */
const threadTicks = (): Map<string, number> => {
  const m = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      m.set(`${tid === String(process.pid) ? 'main' : comm}#${tid}`, Number(f[11]) + Number(f[12]));
    } catch { /* thread ended */ }
  }
  return m;
};
const samples: { t: number; ticks: Map<string, number> }[] = [];
const sampler = setInterval(() => samples.push({ t: performance.now(), ticks: threadTicks() }), 250);
const scenario: Scenario = { name: c.name, seed: 7, phases: [{ type: 'poisson', rate: c.rate, duration_s: seconds }] };
const plan = scenarioToArrivals(scenario, { model: c.model });
recording = true;
const real = await realRun(c, plan.arrivals);
recording = false;
clearInterval(sampler);
const from = real.events[0].t / 1000;
const to = real.events[real.events.length - 1].t / 1000;
const alone = runs.filter((r) => r.behind === 0 && r.posted >= from && r.posted <= to);
console.log(`case ${c.name} (${c.rate}/s): ${runs.length} runs, ${alone.length} posted to an idle worker`);
console.log(`  worker's session.run:            ${q(alone.map((r) => r.session_us))}`);
console.log(`  worker's own work (in+run+out):  ${q(alone.map((r) => r.worker_us))}`);
console.log(`  main thread post -> answer:      ${q(alone.map((r) => (r.answered - r.posted) * 1000))}`);
console.log(`  round trip beyond the worker:    ${q(alone.map((r) => (r.answered - r.posted) * 1000 - r.worker_us))}`);
const timed = alone.filter((r) => r.rx !== undefined);
if (timed.length) {
  console.log(`  posted -> worker began:          ${q(timed.map((r) => (r.rx! - r.posted) * 1000))}`);
  console.log(`  worker answered -> main got it:  ${q(timed.map((r) => (r.answered - r.tx!) * 1000))}`);
  // how long each worker had slept before the post: since it answered its previous run
  const lastTx = new Map<InstanceWorker, number>();
  const slept = new Map<Run, number>();
  for (const r of [...runs].sort((a, b) => a.posted - b.posted)) {
    const prev = lastTx.get(r.worker);
    if (prev !== undefined) slept.set(r, (r.posted - prev) * 1000);
    if (r.tx !== undefined) lastTx.set(r.worker, r.tx);
  }
  for (const [lo, hi] of [[300, 1000], [1000, Infinity]]) {
    for (const spin of [false, true]) {
      const xs = timed.filter((r) => r.spinning === spin && (slept.get(r) ?? 0) >= lo && (slept.get(r) ?? 0) < hi).map((r) => (r.answered - r.posted) * 1000);
      if (xs.length) console.log(`  post -> answer, worker slept ${lo}-${hi} µs, main ${spin ? 'spinning' : 'asleep  '} after the post: ${q(xs)}`);
    }
  }
  for (const spin of [false, true]) {
    const xs = timed.filter((r) => r.spunBefore === spin && (slept.get(r) ?? 0) >= 300).map((r) => (r.answered - r.posted) * 1000);
    if (xs.length) console.log(`  post -> answer, worker slept >= 300 µs, main ${spin ? 'spinning' : 'asleep  '} before the post: ${q(xs)}`);
  }
  for (const fromTimeout of [false, true]) {
    const xs = timed.filter((r) => r.fromTimeout === fromTimeout && r.spinning && (slept.get(r) ?? 0) >= 300).map((r) => (r.answered - r.posted) * 1000);
    if (xs.length) console.log(`  post -> answer, worker slept >= 300 µs, spinning after, posted ${fromTimeout ? 'from a setTimeout wake' : 'otherwise            '}: ${q(xs)}`);
  }
  // how often a woken worker begins late, by how long it slept and whether the main thread spun after the post
  const bins = [300, 1000, 2000, 3000, 5000, Infinity];
  for (const spin of [false, true]) {
    const cells: string[] = [];
    for (let i = 0; i + 1 < bins.length; i++) {
      const xs = timed.filter((r) => r.spinning === spin && (slept.get(r) ?? 0) >= bins[i] && (slept.get(r) ?? 0) < bins[i + 1]).map((r) => (r.rx! - r.posted) * 1000);
      const p90 = xs.length ? percentile(Float64Array.from(xs).sort(), 0.9).toFixed(0) : '-';
      cells.push(`${bins[i]}-${bins[i + 1]}: ${xs.filter((us) => us > 500).length}/${xs.length} p90 ${p90}`);
    }
    console.log(`  begins > 0.5 ms late, main ${spin ? 'spinning' : 'asleep  '} after: ${cells.join(' | ')}`);
  }
}
const gcs = gc.filter((g) => g.startTime >= from && g.startTime <= to);
// a slow start of a woken instance: did a collection of the main thread overlap it?
const slow = timed.filter((r) => (r.rx! - r.posted) * 1000 > 500);
const overlaps = (a: number, b: number) => gcs.some((g) => g.startTime < b && g.startTime + g.duration > a);
const slowInGc = slow.filter((r) => overlaps(r.posted, r.rx!)).length;
const allInGc = timed.filter((r) => overlaps(r.posted, r.rx!)).length;
console.log(`  starts slower than 0.5 ms: ${slow.length} of ${timed.length}, ${slowInGc} of them during a main-thread collection (of all starts: ${allInGc})`);
console.log(`  GC pauses in the replay: ${gcs.length} (${(gcs.length / seconds).toFixed(0)}/s): ${q(gcs.map((g) => g.duration * 1000))}`);
const a = samples.find((x) => x.t >= from)!;
const b = [...samples].reverse().find((x) => x.t <= to)!;
const span = (b.t - a.t) / 1000;
const busy = [...b.ticks].map(([k, v]) => [k, (v - (a.ticks.get(k) ?? v)) / 100 / span] as const).filter(([, f]) => f > 0.005).sort((x, y) => y[1] - x[1]);
console.log(`  CPU per thread over ${span.toFixed(1)} s of the replay (cores): ${busy.map(([k, f]) => `${k} ${f.toFixed(2)}`).join(', ')}`);
const queued = real.events.filter((e) => e.type === 'request.queued').map((e) => e.t);
const t0 = queued[0];
const lag = queued.map((t, i) => t - t0 - (plan.arrivals[i].t_us - plan.arrivals[0].t_us));
console.log(`  send lag (queued - scheduled):   ${q(lag)}`);
