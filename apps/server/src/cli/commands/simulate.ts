/**
 * `inferscope simulate`: run a load scenario against model configs through the real scheduler on a virtual
 * clock with a cost model instead of a backend. Offline, seeded, byte-for-byte reproducible.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { READ_LIMITS, readRegularFileSync } from '../../repository/safe-read';
import { basename, dirname, join } from 'node:path';
import { numberArg, parseArgs } from '../../args/args';
import type { Command } from '../command';
import { formatIssue, loadModelConfig, parseModelConfig, type ModelConfig } from '@inferscope/core/config';
import { findPreset, parseTrace, PRESETS, traceToScenario, validateScenario, type Scenario } from '@inferscope/core/load';
import { bundledCalibration, costFromCalibration, DEFAULT_COST, simulate, validateCalibration, validateCost, type CostModel, type SimSummary } from '@inferscope/core/sim';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler';
import { parseSetArgs } from './simulate-args';
import { autotuneTargetOfMs, autotuneTargetUs, autotuneWarnings, describeAutotune, type AutotuneStatus } from '@inferscope/core/autotune';
import type { PhaseFigures } from '@inferscope/core/sim';

function printPhases(phases: PhaseFigures[], decisions: number, statuses: { model: string; status: AutotuneStatus }[]): void {
  // the status the server's panel would show at the end (met / not met with its limit / holding)
  for (const s of statuses) console.log(`${s.model}: ${describeAutotune(s.status)}`);
  console.log(`autotuned (${decisions} changes); per phase:`);
  console.log(`  ${'phase'.padEnd(22)} ${'delay µs'.padStart(9)} ${'p99 µs'.padStart(8)} ${'req/s'.padStart(8)} ${'compute µs/req'.padStart(15)}`);
  for (const p of phases) {
    console.log(`  ${p.label.slice(0, 22).padEnd(22)} ${String(p.delay_us).padStart(9)} ${String(p.p99_us).padStart(8)} ${String(p.throughput_per_s).padStart(8)} ${String(p.compute_per_request_us).padStart(15)}`);
  }
}

const help = `Usage: inferscope simulate --scenario FILE|PRESET --model-config PBTXT [options]

Runs a scenario through InferScope's scheduler on a virtual clock; a cost model stands in for the backend
(latency(batch) = fixed_us + per_item_us * batch, or a table per batch size). The bundled models use the
tables \`inferscope calibrate\` measured (packages/core/src/sim/calibrations), and CPU instances share the
host's cores. Same seed, same output.

Options:
  --scenario FILE|PRESET   scenario JSON, a recorded trace (.ndjson, replayed) or a preset name
  --model-config PBTXT     a config.pbtxt (or a model folder holding one); repeat for a model mix
  --rate R                 scale the scenario so its busiest phase sends R requests/s
  --duration S             stretch the scenario to S seconds
  --concurrency N          clients of closed-loop phases
  --cost FILE              JSON cost model {fixed_us, per_item_us, table?, jitter?, kind?} or {model: cost}
                           (default: the model's calibration, else fixed_us 2000, per_item_us 250)
  --calibration FILE       a calibration JSON for the model it names (from \`inferscope calibrate\`, or a live
                           server's GET /v2/models/{m}/calibration), in place of the shipped one; repeatable
  --cores N                CPU cores of the simulated host; CPU instances beyond them share them
                           (default: the cores of the machine the calibration was measured on)
  --seed N                 random seed (default: the scenario's, else 42)
  --set PATH=VALUE         override a config field before running, repeatable, e.g.
                           --set dynamic_batching.max_queue_delay_microseconds=500
                           --set instance_group[0].count=2  --set max_batch_size=16
  --autotune MS            run the autotuner with this p99 target (ms) on the first model; a config's
                           parameter autotune_p99_ms does the same. Prints what it chose per phase
  --json                   print the summary as JSON
  --events FILE            write every scheduler event as NDJSON
  --list-presets           list the built-in scenarios`;

function readConfig(path: string): ModelConfig {
  const file = statSync(path).isDirectory() ? join(path, 'config.pbtxt') : path;
  const text = readRegularFileSync(file, READ_LIMITS.config).toString('utf8');
  // GPUs named in the config exist in a simulation: size the virtual host to them
  const gpus = (parseModelConfig(text).instance_group ?? []).flatMap((g) => g.gpus ?? []);
  const res = loadModelConfig(text, { modelName: basename(dirname(file)), gpuCount: Math.max(1, ...gpus.map((g) => g + 1)), checkFolderName: false });
  if (!res.config) throw new Error(`${file}: ${formatIssue(res.error!)}`);
  return res.config;
}

function readScenario(arg: string): Scenario {
  const preset = findPreset(arg);
  if (preset) return preset;
  let text: string;
  try {
    text = readRegularFileSync(arg, READ_LIMITS.trace).toString('utf8');
  } catch {
    throw new Error(`--scenario ${arg}: neither a preset (${PRESETS.map((p) => p.name).join(', ')}) nor a readable file`);
  }
  if (text.trimStart().startsWith('{"format":"inferscope-trace"') || arg.endsWith('.ndjson')) return traceToScenario(parseTrace(text));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${arg}: not valid JSON (${(err as Error).message})`);
  }
  return validateScenario(json);
}

function printSummary(s: SimSummary, models: string[]): void {
  const row = (k: string, v: string | number) => console.log(`  ${k.padEnd(22)} ${v}`);
  console.log(`simulation of "${s.scenario}" on ${models.join(', ')} (seed ${s.seed}, ${s.duration_s.toFixed(3)} s simulated)`);
  row('requests', `${s.requests.sent} sent, ${s.requests.completed} completed, ${s.requests.rejected} rejected, ${s.requests.failed} failed`);
  if (s.requests.rejected > 0) row('rejected by reason', JSON.stringify(s.rejected_by_reason));
  row('throughput', `${s.throughput_per_s} inferences/s (${s.requests_per_s} requests/s)`);
  row('latency p50/p90/p99', `${s.latency_us.p50} / ${s.latency_us.p90} / ${s.latency_us.p99} µs (max ${s.latency_us.max})`);
  row('queue vs compute', `${s.queue_us.mean} µs queued, ${s.compute_us.mean} µs computing (means)`);
  row('batches', `${s.batches}, average size ${s.avg_batch_size}`);
  row('batch sizes', Object.entries(s.batch_size_histogram).map(([k, v]) => `${k}:${v}`).join(' '));
  row('triggers', Object.entries(s.triggers).map(([k, v]) => `${k}:${v}`).join(' '));
}

const command: Command = {
  name: ['simulate'],
  summary: 'run a load scenario through the scheduler on a virtual clock (offline, seeded) and summarise it',
  help,
  async run(argv) {
    let opts: Record<string, string>, configs: string[], sets: string[], calibrationFiles: string[], json: boolean;
    try {
      const a = parseArgs(argv, [
        { names: ['--json'], key: 'json', flag: true }, { names: ['--list-presets'], key: 'listPresets', flag: true },
        ...['scenario', 'rate', 'duration', 'cost', 'seed', 'events', 'concurrency', 'cores', 'autotune'].map((key) => ({ names: [`--${key}`], key })),
        { names: ['--model-config'], key: 'configs', repeat: true }, { names: ['--set'], key: 'sets', repeat: true },
        { names: ['--calibration'], key: 'calibrations', repeat: true },
      ]);
      if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
      if (a.flags.has('listPresets')) {
        for (const p of PRESETS) console.log(`${p.name.padEnd(18)} ${p.description ?? ''}`);
        return 0;
      }
      ({ values: opts, lists: { configs, sets, calibrations: calibrationFiles } } = a);
      json = a.flags.has('json');
    } catch (err) {
      console.error(`${(err as Error).message} (see --help)`);
      return 2;
    }
    if (!opts.scenario || configs.length === 0) {
      console.error('simulate needs --scenario and --model-config (see --help)');
      return 2;
    }
    try {
      const num = (k: string) => (opts[k] === undefined ? undefined : numberArg(opts[k], `--${k}`, 0, { min: 0 }));
      const scenario = readScenario(opts.scenario);
      const loaded = configs.map(readConfig);
      const models = loaded as SchedulerConfigInput[];
      const patched = models.map((m) => parseSetArgs(sets, m));
      let cost: CostModel | Record<string, CostModel>;
      let cores = num('cores');
      if (opts.cost && calibrationFiles.length) throw new Error('give --cost or --calibration, not both');
      if (opts.cost) {
        const raw = JSON.parse(readFileSync(opts.cost, 'utf8')) as Record<string, unknown>;
        const single = ['fixed_us', 'per_item_us', 'table'].some((k) => k in raw);
        cost = single ? validateCost(raw, opts.cost) : Object.fromEntries(Object.entries(raw).map(([m, c]) => [m, validateCost(c, `${opts.cost} (${m})`)]));
      } else {
        // each model its own calibration (the simulated host has the calibration machine's cores): a file
        // given for it, else the shipped one
        const given = calibrationFiles.map((f) => validateCalibration(JSON.parse(readRegularFileSync(f, READ_LIMITS.config).toString('utf8')), f));
        for (const c of given) if (!patched.some((m) => m.name === c.model)) throw new Error(`--calibration: ${c.model} is not one of the models simulated (${patched.map((m) => m.name).join(', ')})`);
        const cals = patched.map((m, i) => given.find((c) => c.model === m.name) ?? bundledCalibration(m.name ?? '', loaded[i].backend || undefined));
        cost = Object.fromEntries(patched.map((m, i) => [m.name ?? 'model', cals[i] ? costFromCalibration(cals[i]) : DEFAULT_COST]));
        const missing = patched.filter((_, i) => !cals[i]).map((m) => m.name);
        if (missing.length) console.error(`simulate: no calibration for ${missing.join(', ')}: using fixed_us ${DEFAULT_COST.fixed_us} + per_item_us ${DEFAULT_COST.per_item_us} (give --cost FILE)`);
        cores ??= Math.max(0, ...cals.map((c) => c?.host.cpus ?? 0)) || undefined;
      }
      if (cores !== undefined && cores < 1) throw new Error('--cores must be >= 1');
      const seed = num('seed');
      const autotune = opts.autotune !== undefined ? autotuneTargetOfMs(opts.autotune, '--autotune') : undefined;
      patched.forEach((m, i) => {
        const targetUs = i === 0 && autotune !== undefined ? autotune : autotuneTargetUs(m);
        if (targetUs === undefined) return;
        const batch1 = typeof cost === 'object' && !('table' in cost || 'fixed_us' in cost) ? (cost as Record<string, CostModel>)[m.name ?? 'model']?.table?.['1'] : undefined;
        for (const w of autotuneWarnings({ max_batch_size: m.max_batch_size, parameters: { autotune_p99_ms: { string_value: String(targetUs / 1000) } } }, batch1)) console.error(`simulate: ${m.name}: ${w}`);
      });
      const { events, summary, phases, decisions, autotune: statuses } = simulate({
        scenario, configs: patched, cost, cores, seed, record: opts.events !== undefined, autotune,
        overrides: { rate: num('rate'), duration_s: num('duration'), concurrency: num('concurrency') },
      });
      if (opts.events) writeFileSync(opts.events, events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : ''));
      const tuned = autotune !== undefined || patched.some((m) => autotuneTargetUs(m) !== undefined);
      if (json) console.log(JSON.stringify(tuned ? { ...summary, phases, decisions, autotune: statuses } : summary, null, 2));
      else {
        printSummary(summary, patched.map((m) => m.name ?? 'model'));
        if (tuned) printPhases(phases, decisions.length, statuses);
      }
      return 0;
    } catch (err) {
      console.error(`simulate: ${(err as Error).message}`);
      return 1;
    }
  },
};

export default command;
