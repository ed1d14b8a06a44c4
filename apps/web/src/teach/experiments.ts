/**
 * The lessons' experiments: each runs core's simulator (the real scheduler, calibrated costs, a 2-core
 * host) on identical seeded arrivals under a few settings and turns the summaries into tables plus a
 * verdict sentence whose numbers come from those same rows. Nothing here is a stored result: change the
 * calibration or the scheduler and the tables change with it. Pure (no DOM): the unit tests and the page
 * run the same code.
 */
import { simulate, type SimSummary, type CostModel } from '@inferscope/core/sim';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler';
import type { Scenario } from '@inferscope/core/load';
import { formatRate, formatUs } from '../charts/format';
import { S } from '../i18n/strings';
import { CALIBRATION_CORES, cnn, measuredCost, mlp, mlpTorch } from './models';
import type { SimModel } from './sim-types';
import { fullBatchesPerS, moderateRate, roundRate, servedPerS } from './rates';
import { claimHolds } from './claims';

export type ExperimentId = 'batching' | 'backends' | 'concurrency' | 'operations';

export interface ExperimentRow {
  label: string;
  /** "measured" or "modelled" cost */
  source: 'measured' | 'modelled';
  summary: SimSummary;
  /** for the chart: rows sharing a group stand side by side (MLP vs CNN), their series tells them apart (on/off) */
  group?: string;
  series?: string;
  /** the lesson knob's value this row was run at (delay µs, instance count): the chart marks the current one */
  setting?: number;
}

export interface ExperimentTable {
  id: string;
  title: string;
  rows: ExperimentRow[];
  /** the claim's sentence when the rows bear it out (claims.ts), else what the rows show instead */
  verdict: string;
  /** the verdict's numbers, for tests and data attributes */
  figures: Record<string, number>;
  /** whether the figures bear out the lesson's claim */
  holds: boolean;
}

/** A table whose verdict is chosen by its own figures: the claim when it holds, the plain finding when not. */
function table(t: Omit<ExperimentTable, 'verdict' | 'holds'>, claim: string, notHere: string): ExperimentTable {
  const holds = claimHolds(t.id, t.figures);
  return { ...t, holds, verdict: holds ? claim : `${S.exp.notHere} ${notHere}` };
}

interface Variant {
  label: string;
  group?: string;
  series?: string;
  setting?: number;
  model: SimModel;
  config: SchedulerConfigInput;
  cost?: CostModel;
}

const x = (v: number) => (v >= 10 ? v.toFixed(0) : v.toFixed(1));

function run(v: Variant, rate: number, seconds: number, seed: number): ExperimentRow {
  const scenario: Scenario = { name: 'experiment', seed, phases: [{ type: 'poisson', rate, duration_s: seconds }] };
  const { summary } = simulate({
    scenario, configs: [{ ...v.config, name: v.model.name }], cost: { [v.model.name]: v.cost ?? v.model.cost },
    cores: CALIBRATION_CORES, seed, record: false,
  });
  return { label: v.label, source: v.model.measured ? 'measured' : 'modelled', summary, group: v.group, series: v.series, setting: v.setting };
}

const withBatching = (m: SimModel, db: Record<string, unknown> | null, extra: Record<string, unknown> = {}): SchedulerConfigInput => {
  const { dynamic_batching: _d, ...rest } = m.config;
  return { ...rest, ...extra, ...(db ? { dynamic_batching: db } : {}) } as SchedulerConfigInput;
};
const instances = (m: SimModel, n: number) => [{ ...(m.config.instance_group?.[0] ?? {}), count: n }];
const thr = (r: ExperimentRow) => r.summary.throughput_per_s;
const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);

/**
 * Lesson 3's delay rows: the MLP at a delay (the row's setting, the lesson knob's unit), under the overload
 * (twice what batches of one serve) or at the moderate load, the same seeded arrivals for every delay.
 */
function delayRun(us: number, load: 'over' | 'moderate', seed: number): ExperimentRow {
  const m = mlp();
  const rate = load === 'over' ? roundRate(2 * servedPerS(m.cost, 1)) : moderateRate(m.cost);
  const config = withBatching(m, { max_queue_delay_microseconds: us }, { max_batch_size: 32 });
  return run({ label: S.exp.batchingOn(formatUs(us)), setting: us, model: m, config }, rate, load === 'over' ? 0.5 : 1, seed);
}

/** The tables a delay row belongs to, and the load each runs at. */
const DELAY_TABLES = { delay: 'moderate', overload: 'over' } as const;

/**
 * The rows the lesson knob adds at its own value (lesson 3: the delay it is set to, in the tables of delays),
 * so the chart always has a bar for where the knob is. The verdicts stay on the tables' own rows.
 */
export function knobRows(id: ExperimentId, seed: number, value: number): Record<string, ExperimentRow> {
  if (id !== 'batching' || !(value >= 0)) return {};
  return Object.fromEntries(Object.entries(DELAY_TABLES).map(([table, load]) => [table, delayRun(value, load, seed)]));
}

/** Lesson 3: batching on/off at an overload; the delay at a moderate load and under overload; MLP vs CNN. */
function batching(seed: number): ExperimentTable[] {
  const m = mlp();
  const single = servedPerS(m.cost, 1);
  const over = roundRate(2 * single); // twice what batches of one can serve
  const moderate = moderateRate(m.cost);
  const off = run({ label: S.exp.batchingOff, setting: -1, model: m, config: withBatching(m, null, { max_batch_size: 32 }) }, over, 0.5, seed);
  const on0 = delayRun(0, DELAY_TABLES.overload, seed);
  const on2 = delayRun(2000, DELAY_TABLES.overload, seed);
  const onOff = ratio(thr(on0), thr(off));
  const mod0 = delayRun(0, DELAY_TABLES.delay, seed);
  const mod2 = delayRun(2000, DELAY_TABLES.delay, seed);
  const batchRatio = ratio(mod2.summary.avg_batch_size, mod0.summary.avg_batch_size);
  const busyRatio = ratio(mod2.summary.busy_us_per_request, mod0.summary.busy_us_per_request);
  const overloadRatio = ratio(thr(on2), thr(on0));

  // MLP vs CNN on the same traffic and config, above what either can serve in batches of 32
  const c = cnn();
  const costs = [m, c].flatMap((model) => (['session', 'server'] as const).map((which) => measuredCost(model.name, which, 0)));
  const heavy = roundRate(1.5 * Math.max(...costs.map((cost) => servedPerS(cost, 32))));
  const bound = (model: SimModel, on: boolean, which: 'session' | 'server') =>
    run({
      label: S.exp.boundRow(model.name, on, which === 'session' ? S.exp.whereSession : S.exp.whereServer), model,
      group: `${model.name} (${which === 'session' ? S.exp.whereSession : S.exp.whereServer})`, series: on ? S.exp.on : S.exp.off,
      config: withBatching(model, on ? { max_queue_delay_microseconds: 0 } : null, { max_batch_size: 32, instance_group: instances(model, 1) }),
      cost: measuredCost(model.name, which, 0),
    }, heavy, 0.2, seed);
  const rows = [bound(m, false, 'session'), bound(m, true, 'session'), bound(c, false, 'session'), bound(c, true, 'session'), bound(c, false, 'server'), bound(c, true, 'server')];
  const mlpGain = ratio(thr(rows[1]), thr(rows[0]));
  const cnnGain = ratio(thr(rows[3]), thr(rows[2]));
  const cnnServerGain = ratio(thr(rows[5]), thr(rows[4]));
  const p50 = (r: ExperimentRow) => formatUs(r.summary.latency_us.p50);
  return [
    table({ id: 'on-off', title: S.exp.onOffTitle(formatRate(over)), rows: [off, on0], figures: { ratio: onOff } },
      S.exp.onOffVerdict(x(onOff), formatRate(thr(off))), S.exp.onOffNotHere(x(onOff))),
    table({
      id: 'delay', title: S.exp.delayTitle(formatRate(moderate)), rows: [mod0, mod2],
      figures: { batchRatio, busyRatio, p50Delay0: mod0.summary.latency_us.p50, p50Delay2: mod2.summary.latency_us.p50 },
    }, S.exp.delayVerdict(x(batchRatio), `${Math.round(busyRatio * 100)}%`, p50(mod0), p50(mod2)),
    S.exp.delayNotHere(x(batchRatio), `${Math.round(busyRatio * 100)}%`, p50(mod0), p50(mod2))),
    table({ id: 'overload', title: S.exp.overloadTitle(formatRate(over)), rows: [on0, on2], figures: { ratio: overloadRatio, batch0: on0.summary.avg_batch_size } },
      S.exp.overloadVerdict(overloadRatio.toFixed(2), on0.summary.avg_batch_size.toFixed(1)),
      S.exp.overloadNotHere(overloadRatio.toFixed(2), on0.summary.avg_batch_size.toFixed(1))),
    table({ id: 'bound', title: S.exp.boundTitle(formatRate(heavy)), rows, figures: { mlpGain, cnnGain, cnnServerGain } },
      S.exp.boundVerdict(x(mlpGain), cnnGain.toFixed(2), cnnServerGain.toFixed(2)), S.exp.boundNotHere(x(mlpGain), cnnGain.toFixed(2))),
  ];
}

/**
 * Lesson 4: the same weights on onnxruntime and on PyTorch (TorchScript), both measured here, on the same
 * traffic at two loads: a light one (batches of ~1) and a heavier one with a delay (bigger batches). Each
 * backend through the server (instance time per request, the stub's process hop included for PyTorch)
 * and its compute alone (onnxruntime's session.run, torch's forward), so the table shows where the
 * difference comes from and how it changes with the batch size.
 */
function backends(seed: number): ExperimentTable[] {
  const a = mlp();
  const b = mlpTorch();
  const load = (rate: number, delayUs: number) => {
    const db = { max_queue_delay_microseconds: delayUs };
    const row = (m: SimModel, which: 'server' | 'session') =>
      run({ label: `${m.name} (${m.backend}, ${which === 'session' ? S.exp.whereSession : S.exp.whereServer})`, group: which === 'session' ? S.exp.whereSession : S.exp.whereServer, series: m.backend, model: m, config: { ...m.config, dynamic_batching: db }, cost: measuredCost(m.name, which, 0) }, rate, 1, seed);
    const rows = [row(a, 'server'), row(b, 'server'), row(a, 'session'), row(b, 'session')];
    const busy = (i: number) => rows[i].summary.busy_us_per_request;
    return { rows, server: ratio(busy(1), busy(0)), compute: ratio(busy(3), busy(2)), batch: rows[0].summary.avg_batch_size };
  };
  const light = load(300, 0);
  const heavy = load(4000, 2000);
  const backendTable = (id: string, l: typeof light, rate: number) => {
    // the sentence names the backend that costs more first, whichever it is on this calibration
    const [slow, fast, server, compute] = l.server >= 1 ? [b, a, l.server, l.compute] : [a, b, 1 / l.server, 1 / l.compute];
    const sentence = S.exp.backendsVerdict(slow.backend, fast.backend, server.toFixed(1), compute.toFixed(1), l.batch.toFixed(1));
    return table({ id, title: S.exp.backendsTitle(formatRate(rate), l.batch.toFixed(1)), rows: l.rows, figures: { server: l.server, compute: l.compute, batch: l.batch } },
      sentence, sentence);
  };
  return [backendTable('backends-light', light, 300), backendTable('backends-heavy', heavy, 4000)];
}

/** Lesson 5: instances on a 2-core host at an overload. */
function concurrency(seed: number): ExperimentTable[] {
  const c = cnn();
  // three instances' worth at the largest batch: more than the cores can serve however many instances
  const rate = roundRate(3 * fullBatchesPerS(c));
  const rows = [1, 2, 3, 4].map((n) => run({ label: S.exp.instancesRow(n), setting: n, model: c, config: withBatching(c, c.config.dynamic_batching as Record<string, unknown>, { instance_group: instances(c, n) }) }, rate, 0.5, seed));
  const two = ratio(thr(rows[1]), thr(rows[0]));
  const four = ratio(thr(rows[3]), thr(rows[1]));
  return [table({ id: 'instances', title: S.exp.instancesTitle(formatRate(rate), CALIBRATION_CORES), rows, figures: { two, four } },
    S.exp.instancesVerdict(two.toFixed(2), four.toFixed(2), CALIBRATION_CORES), S.exp.instancesNotHere(two.toFixed(2), four.toFixed(2)))];
}

/** Lesson 6: a load sweep on one config. */
function operations(seed: number): ExperimentTable[] {
  const m = mlp({}, { max_queue_delay_microseconds: 1000 });
  // from light to 1.6x the most full batches can serve: the last two points are both past the limit
  const limitEstimate = fullBatchesPerS(m);
  const rows = [0.025, 0.1, 0.4, 1.1, 1.6].map((f) => roundRate(f * limitEstimate)).map((rate) => run({ label: S.exp.sweepRow(formatRate(rate)), model: m, config: m.config }, rate, 0.25, seed));
  const limit = Math.max(...rows.map(thr));
  const last = rows[rows.length - 1].summary.latency_us.p99;
  const lastThroughputGrowth = ratio(thr(rows[rows.length - 1]), thr(rows[rows.length - 2]));
  return [table({ id: 'sweep', title: S.exp.sweepTitle, rows, figures: { limit, lastP99: last, firstP99: rows[0].summary.latency_us.p99, lastThroughputGrowth } },
    S.exp.sweepVerdict(formatRate(limit), formatUs(last)), S.exp.sweepNotHere(formatRate(limit), formatUs(last)))];
}

const EXPERIMENTS: Record<ExperimentId, (seed: number) => ExperimentTable[]> = { batching, backends, concurrency, operations };

export function runExperiment(id: ExperimentId, seed: number): ExperimentTable[] {
  return EXPERIMENTS[id](seed);
}
