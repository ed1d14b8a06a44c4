/**
 * Simulator fidelity: the same recorded arrivals (a seeded Poisson trace, written next to the results) and
 * the same config, once through the real server (in process: ModelManager.infer, onnxruntime workers, no
 * HTTP, so the client does not eat the 2 cores) and once through `simulate`. Both sides are summarised by
 * core's SummaryCollector from the scheduler's own events, so the figures mean the same thing.
 *
 * The simulator gets what it would get from `inferscope calibrate` on this machine, measured in this run
 * (a shared machine's speed moves by 2x within a minute; the shipped tables describe the machine when
 * they were written): the host's timer lateness at the start, and just before each case its model's
 * batch-time table and spread (one instance, batches one after the other) and the effective cores; the
 * main thread's work per request, its collections and its woken instances' wait on the case's server
 * before its replay. Nothing is taken from the replay itself.
 *
 *   node --import tsx bench/sim-fidelity/run.ts [--seconds 3] [--repeat 1] [--calibration same-run|bundled]
 *        [--without prefetch,held,timers,spread,interruptions,idle,spin,spincore,wake,host,stalls,gc] [--with spin-isolated] [--also-without LIST] [--case 0,1] [--out DIR]
 *
 * `--without` switches mechanisms off in the simulator (ablation; all off = the simulator before they
 * were modelled): prefetch (instances take their next batch while computing), held (a batch held behind
 * a running one takes the held table's time, measured with two in flight: no hand-off), interruptions
 * (batches far beyond their size's median, as added µs at a rate per second of batch time), timers (RealClock's
 * lateness), spread (measured batch-time distribution), idle (the cost of a batch after idle), host
 * (effective cores and main-thread work, per case: the cores probe just before, the main-thread probe on
 * the case's server before its replay), stalls (main-thread stalls, the stall probe just before the case),
 * spin (an idle instance woken while the main thread spins waits for its core to be woken: measured on
 * the case's server under a second of its own traffic, another seed, wake-probe.ts; `--with spin-isolated`
 * takes calibrate's isolated measurement instead, which overstates most cases), spincore (while RealClock turns its loop, the main thread holds a core the CPU
 * instances share less of), wake (the main thread's wake-up for an answer, part of every table time: seen at
 * once while it turns its loop; calibrate's answer-wake measurement), gc (the server's garbage
 * collections per request, the main-thread probe).
 * `--also-without` simulates every round a second time with those switched off as well, against the same
 * real run: what a mechanism is worth, free of the host's drift from one round to the next.
 * Every round is saved to the out dir (round-STAMP-RUN-CASE.json: the case, its trace file, the calibration
 * and host the simulation got, the real summary): `resim.ts` simulates saved rounds again with the
 * simulator as it is now, so a change to it is judged against the same real runs.
 * With --repeat > 1 the real runs of each case are also compared with each other (the same trace, back
 * to back): the real server's own repeatability, next to the simulator's distance from it.
 * Targets (issue 20): throughput, mean batch size and p50 within 15%, p99 within 30%.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, loadavg } from 'node:os';
import type { SchedulerEvent } from '@inferscope/core';
import { scenarioToArrivals, serializeTrace, parseTrace, traceToScenario, type Scenario } from '@inferscope/core/load';
import { costFromCalibration, SummaryCollector, bundledCalibration, type Calibration, type SimSummary, type StallProfile } from '@inferscope/core/sim';
import { calibrateWithHost, shippedHost } from '../calibration/calibrate';
import { measureTimerProfile } from '../calibration/timer-probe';
import { measureEffectiveCores } from '../calibration/cores-probe';
import { measureStallProfile } from '../calibration/stall-probe';
import { hostFromCalibration, type HostCalibration, type TimerProfile } from '../sim-host/schemas';
import { arg } from '../args';
import { CASES, REPO, configOf, realRun, silencesUs, type Case } from './real-run';
import { CALIBRATION_SIZES } from '../../apps/server/src/calibration/measure-batches';
import { spinWakeProfile } from '../calibration/wake-probe';
import { mechanismOptions, simulateCase, type SavedRound } from './sim-side';
import { METRICS, caseLabel, mediansTable, roundCells } from './report';
import { median } from '../median';

const seconds = Number(arg('--seconds', '3'));
const repeat = Number(arg('--repeat', '1'));
const source = arg('--calibration', 'same-run');
const { without, alsoWithout } = mechanismOptions();
const outDir = arg('--out', fileURLToPath(new URL('./out/', import.meta.url)));
const only = arg('--case', '');

const summarise = (events: SchedulerEvent[], sent: number, label: string, seed: number): SimSummary => {
  const col = new SummaryCollector();
  const t0 = events[0]?.t ?? 0;
  for (const e of events) col.add({ ...e, t: e.t - t0 });
  col.sent = sent;
  return col.summary(label, seed);
};

mkdirSync(outDir, { recursive: true });
/** names this run's saved rounds (round-STAMP-RUN-CASE.json) */
const stamp = new Date().toISOString().slice(0, 16).replace(/[-:T]/g, '');
const cases = CASES.filter((_, i) => only === '' || only.split(',').map(Number).includes(i));
console.log(`sim fidelity: ${seconds} s per case, ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)}, calibration ${source}${without.size ? `, without ${[...without].join(', ')}` : ''}`);

/** The shipped calibrations, when asked for instead of measuring. */
const shipped = new Map(cases.map((c) => [c.model, bundledCalibration(c.model)!]));

/**
 * What the simulator gets for a case: measured just before it on this machine (a shared VM's speed moves
 * within a minute: the case's batch table at the sizes it can form, the host's effective cores), or the
 * shipped calibration.
 */
async function calibrationFor(c: Case, timer: TimerProfile): Promise<{ cal: Calibration; host?: HostCalibration; cores: number; stalls?: StallProfile }> {
  if (source === 'bundled') {
    const cal = shipped.get(c.model)!;
    const host = shippedHost(c.model);
    return { cal, host, cores: hostFromCalibration(cal.host.cpus, host).cores, stalls: host?.stalls };
  }
  const maxBatch = configOf(c).max_batch_size ?? 64;
  const { cal, host } = await calibrateWithHost(REPO, c.model, { seqLen: 16, minMs: 150, timer, mainThread: false, session: false, parallel: c.instances > 1, sizes: CALIBRATION_SIZES.filter((b) => b <= maxBatch) });
  // the cores two of this model really get (hyperthreads share one core's arithmetic), else the generic probe
  return { cal, host, cores: host.parallel_cores ?? (await measureEffectiveCores()), stalls: await measureStallProfile() };
}

const rows = new Map<string, { sim: SimSummary; real: SimSummary; ablated?: SimSummary }[]>();
for (let r = 0; r < repeat; r++) {
  const timer = (source === 'bundled' ? cases.map((c) => shippedHost(c.model)?.timer).find((t) => t) : undefined) ?? await measureTimerProfile();
  for (const c of cases) {
    const scenario: Scenario = { name: c.name, seed: 7, phases: [{ type: 'poisson', rate: c.rate, duration_s: seconds }] };
    const plan = scenarioToArrivals(scenario, { model: c.model });
    const file = join(outDir, `${c.model}-${c.rate}-${c.delayUs}-${c.instances}-${seconds}s.ndjson`);
    writeFileSync(file, serializeTrace({ source: 'sim-fidelity', scenario: c.name, seed: 7 }, plan.arrivals));
    const trace = parseTrace(readFileSync(file, 'utf8'));
    const { cal: calibration, host: measuredHost, cores, stalls } = await calibrationFor(c, timer);
    const real = await realRun(c, trace.arrivals);
    const mainUs = source === 'bundled' ? hostFromCalibration(calibration.host.cpus, measuredHost).mainThreadUsPerRequest : real.main.us_per_request;
    const gc = source === 'bundled' ? measuredHost?.gc : real.main.gc;
    const realSummary = summarise(real.events, real.sent, scenario.name, 1);
    const spinWake = spinWakeProfile(real.woken, costFromCalibration(calibration), real.collections);
    const wake = { spin_wake_us: measuredHost?.spin_wake_us, answer_wake_us: measuredHost?.answer_wake_us };
    const host = { cores, mainUsPerRequest: mainUs, timer, stalls, gc, wake, ...(spinWake ? { spinWake } : {}) };
    const simmed = simulateCase(c, traceToScenario(trace), calibration, host, without, true);
    const sim = simmed.summary;
    const simSilent = silencesUs(simmed.events);
    const ablated = alsoWithout.size ? simulateCase(c, traceToScenario(trace), calibration, host, new Set([...without, ...alsoWithout])).summary : undefined;
    (rows.get(c.name) ?? rows.set(c.name, []).get(c.name)!).push({ sim, real: realSummary, ablated });
    // everything the simulation was given and what the real server did, for resim.ts
    const saved: SavedRound = { case: c, trace: file, calibration, host, real: realSummary, load: loadavg()[0] };
    writeFileSync(join(outDir, `round-${stamp}-${r + 1}-${CASES.indexOf(c)}.json`), JSON.stringify(saved));
    const silent = silencesUs(real.events);
    console.log(`run ${r + 1} | ${c.name} (${c.rate}/s) | ${roundCells(sim, realSummary)} | cores ${cores}, main ${mainUs} µs/req, stalls ${stalls?.rate_per_s ?? 0}/s p50 ${stalls?.duration_us['0.5'] ?? 0} µs, gc every ${gc?.requests_per_gc ?? '-'} requests, spin wake p90/p99 ${spinWake?.['0.9'] ?? '-'}/${spinWake?.['0.99'] ?? '-'} µs (isolated ${wake.spin_wake_us?.['0.9'] ?? '-'}/${wake.spin_wake_us?.['0.99'] ?? '-'}), answer wake ${wake.answer_wake_us ?? '-'} µs; main-thread silences > 5 ms real / sim: ${silent.length} / ${simSilent.length}, ${(silent.reduce((a, b) => a + b, 0) / 1000).toFixed(0)} / ${(simSilent.reduce((a, b) => a + b, 0) / 1000).toFixed(0)} ms, longest ${(Math.max(0, ...silent) / 1000).toFixed(1)} / ${(Math.max(0, ...simSilent) / 1000).toFixed(1)} ms; load ${loadavg()[0].toFixed(1)}`);
  }
}

const rowsOf = (c: Case) => rows.get(c.name) ?? [];
console.log(mediansTable(`medians over ${repeat} run(s), simulated / real (difference):`, cases, rowsOf, (x) => x.sim));
if (alsoWithout.size) console.log(mediansTable(`the same real runs, simulated also without ${[...alsoWithout].join(', ')} / real (difference):`, cases, rowsOf, (x) => x.ablated!));

if (repeat > 1) {
  // The real server against itself: the same trace and config, run after run. A simulation cannot be
  // expected to match the real server more closely than the real server matches itself.
  console.log(`\nreal run to real run, same trace (${repeat} runs): largest minus smallest, % of their median:`);
  console.log(`| case | ${METRICS.map((m) => m[0]).join(' | ')} |\n|---|${METRICS.map(() => '---').join('|')}|`);
  for (const c of cases) {
    const runs = rows.get(c.name)!;
    const cells = METRICS.map((m) => {
      const xs = runs.map((x) => m[1](x.real));
      const mid = median(xs);
      return `${Math.min(...xs).toFixed(m[2])}..${Math.max(...xs).toFixed(m[2])} (${mid === 0 ? 0 : (((Math.max(...xs) - Math.min(...xs)) / mid) * 100).toFixed(0)}%)`;
    });
    console.log(`| ${caseLabel(c)} | ${cells.join(' | ')} |`);
  }
}
