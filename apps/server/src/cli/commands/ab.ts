/**
 * `inferscope ab`: the same traffic (a trace, or a scenario + seed) against one model under two
 * configurations, side by side. Changes go through the live control channel, so they are announced to
 * every dashboard; the original values are restored at the end.
 */
import { checkPlanSize, DEFAULT_LOAD_LIMITS, findPreset, planArrivals, PRESETS, traceToScenario, validateScenario, type Scenario } from '@inferscope/core/load';
import { parseKnobPatch, splitKnobPatch, type KnobPatch } from '@inferscope/core/live-config';
import { READ_LIMITS, readRegularText } from '../../repository/safe-read';
import { reportingErrors, type Command } from '../command';
import { parseArgs, numberArg, normaliseUrl } from '../../args/args';
import { HttpTarget } from '../../loadgen/targets';
import { readTraceFile, scanTraceFile } from '../../loadgen/trace-file';
import { formatABReport, runAB } from '../../clients/ab-compare';
import { connectControl, statsApiWatcher } from '../../clients/ab-remote';
import { resolveControlToken } from '../../control/security';
import { validateControlMessage } from '@inferscope/core/live';

const help = `Usage: inferscope ab -m MODEL (--scenario PRESET|FILE | --trace FILE) --a PATCH --b PATCH [options]

Runs identical traffic twice against a running server, once per configuration, and prints both side by side
(throughput, p50/p99 latency, average batch size, server queue time, rejections).

  -m, --model MODEL        model to compare (required)
  -x, --model-version V    version (default: the server's choice)
  --scenario S             preset name (${PRESETS.map((p) => p.name).join(', ')}) or a scenario JSON file
  --trace FILE             a recorded trace instead of a scenario
  --rate R --duration S    scenario overrides (requests/s, seconds)
  --seed N                 scenario seed (default 1): both sides get the same arrivals
  --rounds N               rounds per side, interleaved A, B, A, B... (default 3); a side is called
                           better on a figure only when the rounds' ranges do not overlap
  --a PATCH, --b PATCH     what each side changes, as the dashboard's A/B writes it: key=value words
                           separated by spaces or ';' ('delay=2000 preferred=8,16 max_batch=32 instances=2';
                           any dynamic_batching field by its name: 'preserve_ordering=true'), a JSON object
                           ('{"max_queue_delay_microseconds":0}'), or a bare number (a delay in µs)
  -u, --url URL            server (default http://127.0.0.1:8000)
  --token T                control token (or INFERSCOPE_CONTROL_TOKEN)
  --binary                 binary tensors
  --json                   print the report as JSON
`;

const specs = [
  { names: ['-m', '--model'], key: 'model' },
  { names: ['-x', '--model-version'], key: 'version' },
  { names: ['--scenario'], key: 'scenario' },
  { names: ['--trace'], key: 'trace' },
  { names: ['--rate'], key: 'rate' },
  { names: ['--duration'], key: 'duration' },
  { names: ['--seed'], key: 'seed' },
  { names: ['--rounds'], key: 'rounds' },
  { names: ['--a'], key: 'a' },
  { names: ['--b'], key: 'b' },
  { names: ['-u', '--url'], key: 'url' },
  { names: ['--token'], key: 'token' },
  { names: ['--binary'], key: 'binary', flag: true },
  { names: ['--json'], key: 'json', flag: true },
];

/**
 * A side's patch in core's one grammar (the dashboard's A/B reads the same), its batching part validated
 * exactly as the server will (so a typo fails before any traffic).
 */
export function parsePatch(text: string, model: string, which: string): KnobPatch {
  let patch: KnobPatch;
  try {
    patch = parseKnobPatch(text);
  } catch (err) {
    throw new Error(`${which}: ${(err as Error).message}`);
  }
  const { batching, instances } = splitKnobPatch(patch);
  if (Object.keys(batching).length > 0) {
    const v = validateControlMessage({ action: 'setDynamicBatching', model, ...batching });
    if (!v.ok) throw new Error(`${which}: ${v.error}`);
  }
  if (instances !== undefined) {
    const v = validateControlMessage({ action: 'setInstanceCount', model, count: instances });
    if (!v.ok) throw new Error(`${which}: ${v.error}`);
  }
  return patch;
}

async function loadScenario(spec: string): Promise<Scenario> {
  const preset = findPreset(spec);
  if (preset) return preset;
  let text: string;
  try {
    text = await readRegularText(spec, READ_LIMITS.trace);
  } catch {
    throw new Error(`--scenario '${spec}' is neither a preset (${PRESETS.map((p) => p.name).join(', ')}) nor a readable file`);
  }
  return validateScenario(JSON.parse(text));
}

export async function ab(argv: string[], out: (s: string) => void = console.log, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const a = parseArgs(argv, specs);
  if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
  const model = a.values.model;
  if (!model) throw new Error('ab needs -m MODEL');
  if (!a.values.a || !a.values.b) throw new Error('ab needs --a PATCH and --b PATCH');
  if (!!a.values.scenario === !!a.values.trace) throw new Error('give exactly one of --scenario or --trace');
  const patchA = parsePatch(a.values.a, model, '--a');
  const patchB = parsePatch(a.values.b, model, '--b');
  if (a.values.trace) {
    // both sides replay the trace from memory: count it first (streaming) and refuse one too big to hold
    const facts = await scanTraceFile(a.values.trace);
    if (facts.arrivals > DEFAULT_LOAD_LIMITS.max_requests_per_run) throw new Error(`${a.values.trace} has ${facts.arrivals} arrivals, more than the ${DEFAULT_LOAD_LIMITS.max_requests_per_run} one run may send`);
  }
  const scenario = a.values.trace ? traceToScenario(await readTraceFile(a.values.trace)) : await loadScenario(a.values.scenario!);
  // a lazy plan (each side reads a fresh stream), refused before any traffic when over the limits
  const plan = planArrivals(scenario, {
    rate: a.values.rate === undefined ? undefined : numberArg(a.values.rate, '--rate', 0, { min: 0.001, max: 100_000 }),
    duration_s: a.values.duration === undefined ? undefined : numberArg(a.values.duration, '--duration', 0, { min: 0.001, max: 3600 }),
    seed: numberArg(a.values.seed, '--seed', 1, { integer: true, min: 0 }),
    model,
  });
  checkPlanSize(plan.size, DEFAULT_LOAD_LIMITS);
  const url = normaliseUrl(a.values.url);
  const target = new HttpTarget({ url, binary: a.flags.has('binary') });
  const control = await connectControl(url, resolveControlToken(a.values.token, env));
  try {
    await target.check(model, a.values.version);
    const report = await runAB({
      model,
      version: a.values.version,
      control,
      server: { watch: statsApiWatcher(target, model, a.values.version) },
      target,
      plan,
      a: { label: 'A', patch: patchA },
      b: { label: 'B', patch: patchB },
      rounds: numberArg(a.values.rounds, '--rounds', 3, { integer: true, min: 1, max: 20 }),
      by: 'cli',
    });
    out(a.flags.has('json') ? JSON.stringify(report, null, 2) : formatABReport(report));
    return report.a.client.count > 0 && report.b.client.count > 0 ? 0 : 1;
  } finally {
    control.close();
    target.close();
  }
}

const command: Command = {
  name: ['ab'],
  summary: 'compare two dynamic batching configurations on identical traffic',
  help,
  run: reportingErrors('ab', (argv) => ab(argv)),
};
export default command;
