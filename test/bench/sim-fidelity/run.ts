/**
 * Simulator fidelity: the same recorded arrivals (a seeded Poisson trace, written next to the results) and
 * the same config, once through the real server (in process: ModelManager.infer, onnxruntime workers, no
 * HTTP, so the client does not eat the 2 cores) and once through `simulate` with the calibrated cost
 * tables (packages/core/src/sim/calibration) on a 2-core host. Both sides are summarised by core's
 * SummaryCollector from the scheduler's own events, so the figures mean the same thing.
 *
 *   node --import tsx test/bench/sim-fidelity/run.ts [--seconds 3] [--out DIR]
 *
 * Targets (issue 20): throughput, mean batch size and p50 within 15%, p99 within 30%.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import type { SchedulerEvent } from '@inferscope/core';
import { loadModelConfig } from '@inferscope/core/config/index.ts';
import { scenarioToArrivals, serializeTrace, parseTrace, traceToScenario, type Scenario } from '@inferscope/core/load/index.ts';
import { calibratedCost, simulate, SummaryCollector, bundledCalibration, type SimSummary } from '@inferscope/core/sim/index.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/index.ts';
import { buildApp } from '../../../apps/server/src/app';
import { InProcessTarget } from '../../../apps/server/src/load/targets';
import { runLoad } from '../../../apps/server/src/load/runner';
import { RealClock } from '@inferscope/core/clock/index.ts';
import type { Arrival } from '@inferscope/core/load/index.ts';
import { arg } from '../args';

const REPO = fileURLToPath(new URL('../../../model_repository/', import.meta.url));
const seconds = Number(arg('--seconds', '3'));
const outDir = arg('--out', fileURLToPath(new URL('./out/', import.meta.url)));

interface Case { name: string; model: string; rate: number; delayUs: number; instances: number }
const CASES: Case[] = [
  { name: 'mlp moderate, delay 2 ms', model: 'mlp_classifier', rate: 2000, delayUs: 2000, instances: 1 },
  { name: 'mlp moderate, delay 0', model: 'mlp_classifier', rate: 2000, delayUs: 0, instances: 1 },
  { name: 'mlp busy, delay 500 µs, 2 instances', model: 'mlp_classifier', rate: 6000, delayUs: 500, instances: 2 },
  { name: 'cnn busy, delay 1 ms', model: 'cnn_classifier', rate: 2500, delayUs: 1000, instances: 1 },
  { name: 'cnn overload, delay 1 ms', model: 'cnn_classifier', rate: 12000, delayUs: 1000, instances: 1 },
  { name: 'cnn overload, 2 instances', model: 'cnn_classifier', rate: 12000, delayUs: 1000, instances: 2 },
];

function configOf(model: string, c: Case): SchedulerConfigInput {
  const r = loadModelConfig(readFileSync(join(REPO, model, 'config.pbtxt'), 'utf8'), { modelName: model, gpuCount: 0 });
  const cfg = structuredClone(r.config!) as SchedulerConfigInput & { instance_group?: { count?: number }[] };
  cfg.dynamic_batching = { ...cfg.dynamic_batching, max_queue_delay_microseconds: c.delayUs };
  cfg.instance_group = [{ ...cfg.instance_group![0], count: c.instances }];
  return { ...cfg, name: model };
}

const summarise = (events: SchedulerEvent[], sent: number, label: string, seed: number): SimSummary => {
  const col = new SummaryCollector();
  const t0 = events[0]?.t ?? 0;
  for (const e of events) col.add({ ...e, t: e.t - t0 });
  col.sent = sent;
  return col.summary(label, seed);
};

async function realRun(c: Case, scenario: Scenario, trace: ReturnType<typeof parseTrace>): Promise<SimSummary> {
  const server = await buildApp({ modelRepositories: [REPO], httpPort: 0, metricsPort: null, host: '127.0.0.1', live: false });
  try {
    const m = server.manager;
    const served = m.get(c.model)!;
    await m.updateDynamicBatching(c.model, served.version, { max_queue_delay_microseconds: c.delayUs }, 'bench');
    await m.setInstanceCount(c.model, served.version, undefined, c.instances, 'bench');
    const target = new InProcessTarget(m);
    // warm the instances on a short copy of the traffic, then measure on the trace
    const replay = (arrivals: Arrival[]) => runLoad(target, { open: arrivals[Symbol.iterator]() }, { model: c.model, clock: new RealClock() });
    await replay(trace.arrivals.slice(0, 200));
    const events: SchedulerEvent[] = [];
    const off = server.bus.on((e) => {
      if ('model' in e && e.model === c.model) events.push(e);
    });
    const res = await replay(trace.arrivals);
    off();
    return summarise(events, res.sent, scenario.name, 1);
  } finally {
    await server.close();
  }
}

const pct = (sim: number, real: number) => (real === 0 ? 0 : ((sim - real) / real) * 100);

mkdirSync(outDir, { recursive: true });
const rows: string[] = [];
const cores = Number(arg('--cores', String(bundledCalibration('mlp_classifier')!.host.cpus)));
console.log(`sim fidelity: ${seconds} s per case, ${cpus().length} cores here, simulated host ${cores} cores`);
for (const c of CASES) {
  const scenario: Scenario = { name: c.name, seed: 7, phases: [{ type: 'poisson', rate: c.rate, duration_s: seconds }] };
  const plan = scenarioToArrivals(scenario, { model: c.model });
  const file = join(outDir, `${c.model}-${c.rate}-${c.delayUs}-${c.instances}.ndjson`);
  writeFileSync(file, serializeTrace({ source: 'sim-fidelity', scenario: c.name, seed: 7 }, plan.arrivals));
  const trace = parseTrace(readFileSync(file, 'utf8'));
  const real = await realRun(c, scenario, trace);
  const sim = simulate({ scenario: traceToScenario(trace), configs: [configOf(c.model, c)], cost: { [c.model]: calibratedCost(c.model)! }, cores, seed: 7, record: false }).summary;
  const cell = (s: number, r: number, d = 0) => `${s.toFixed(d)} / ${r.toFixed(d)} (${pct(s, r) >= 0 ? '+' : ''}${pct(s, r).toFixed(0)}%)`;
  const row = `| ${c.name} (${c.rate}/s) | ${cell(sim.throughput_per_s, real.throughput_per_s)} | ${cell(sim.avg_batch_size, real.avg_batch_size, 2)} | ${cell(sim.latency_us.p50, real.latency_us.p50)} | ${cell(sim.latency_us.p99, real.latency_us.p99)} |`;
  rows.push(row);
  console.log(row);
}
console.log('\n| case | throughput/s sim / real | mean batch | p50 µs | p99 µs |\n|---|---|---|---|---|');
for (const r of rows) console.log(r);
