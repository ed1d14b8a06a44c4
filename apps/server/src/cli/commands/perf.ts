/**
 * `inferscope perf`: a perf_analyzer-style client. Runs steps of concurrency or request rate against a
 * server's KServe endpoint, prints perf_analyzer's per-step summary and closing table, and writes its CSV.
 */
import { writeFileSync } from 'node:fs';
import { reportingErrors, type Command } from '../command';
import { parseArgs, numberArg, normaliseUrl } from '../../load/cli-args';
import { HttpTarget } from '../../load/targets';
import { runPerfStep, parseRange, type StepResult } from '../../load/perf/perf-step';
import { composingModelsOf, readModelStats } from '../../load/perf/server-stats';
import { closingTable, stepSummary, toCsv } from '../../load/perf/perf-report';
import type { StepMode } from '../../load/perf/step-load';

const help = `Usage: inferscope perf -m MODEL [options]

Measures throughput and latency of a model the way Triton's perf_analyzer does.

  -m, --model MODEL              model name (required)
  -x, --model-version V          model version (default: the server's choice)
  -u, --url URL                  server (default http://127.0.0.1:8000; host:port works too)
  -b, --batch-size N             samples per request (default 1)
  --shape DIMS                   non-batch dims for variable inputs, e.g. 32 or 3,64,64
  --concurrency-range A:B:S      closed-loop clients, from A to B in steps of S (default 1:1:1)
  --request-rate-range A:B:S     open-loop request rates (requests/s) instead of concurrency
  --request-distribution D       constant | poisson (request-rate mode, default constant)
  --measurement-interval MS      window length in ms (default 5000)
  -p MS                          same as --measurement-interval
  --percentile P                 stabilise on (and report) the P-th percentile latency
  --stability-percentage PCT     windows agree within PCT percent (default 10)
  --max-trials N                 windows per step before giving up on stability (default 10)
  --binary                       send and receive binary tensors (Triton's binary extension)
  -f, --latency-report-file CSV  write perf_analyzer's CSV there
  --seed N                       seed for input data and Poisson gaps (default 1)
`;

const specs = [
  { names: ['-m', '--model'], key: 'model' },
  { names: ['-x', '--model-version'], key: 'version' },
  { names: ['-u', '--url'], key: 'url' },
  { names: ['-b', '--batch-size'], key: 'batch' },
  { names: ['--shape'], key: 'shape' },
  { names: ['--concurrency-range'], key: 'concurrency' },
  { names: ['--request-rate-range'], key: 'rate' },
  { names: ['--request-distribution'], key: 'distribution' },
  { names: ['--measurement-interval', '-p'], key: 'interval' },
  { names: ['--percentile'], key: 'percentile' },
  { names: ['--stability-percentage', '-s'], key: 'stability' },
  { names: ['--max-trials', '-r'], key: 'trials' },
  { names: ['--binary'], key: 'binary', flag: true },
  { names: ['-f', '--latency-report-file'], key: 'csv' },
  { names: ['--seed'], key: 'seed' },
];

export async function perf(argv: string[], out: (s: string) => void = console.log, progress: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  const a = parseArgs(argv, specs);
  if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
  const model = a.values.model;
  if (!model) throw new Error('perf needs -m MODEL');
  if (a.values.concurrency && a.values.rate) throw new Error('give either --concurrency-range or --request-rate-range, not both');
  const distribution = a.values.distribution ?? 'constant';
  if (distribution !== 'constant' && distribution !== 'poisson') throw new Error(`--request-distribution must be constant or poisson, got '${distribution}'`);
  if (a.values.distribution && !a.values.rate) throw new Error('--request-distribution applies to --request-rate-range only');
  const seed = numberArg(a.values.seed, '--seed', 1, { integer: true, min: 0 });
  const modes: StepMode[] = a.values.rate
    ? parseRange(a.values.rate, '--request-rate-range', false).map((rate) => ({ kind: 'rate', rate, distribution, seed }))
    : parseRange(a.values.concurrency ?? '1', '--concurrency-range', true).map((concurrency) => ({ kind: 'concurrency', concurrency }));
  const percentile = a.values.percentile === undefined ? undefined : numberArg(a.values.percentile, '--percentile', 0, { min: 1, max: 99.9 });
  const interval = numberArg(a.values.interval, '--measurement-interval', 5000, { min: 50, max: 600_000 });
  const stability = numberArg(a.values.stability, '--stability-percentage', 10, { min: 0.1, max: 100 });
  const maxTrials = numberArg(a.values.trials, '--max-trials', 10, { integer: true, min: 3, max: 1000 });
  const batch = numberArg(a.values.batch, '--batch-size', 1, { integer: true, min: 1 });
  const shape = a.values.shape?.split(',').map((d) => numberArg(d, '--shape', 0, { integer: true, min: 1 }));
  const url = normaliseUrl(a.values.url);
  const maxConcurrency = Math.max(...modes.map((m) => (m.kind === 'concurrency' ? m.concurrency : 64)));
  const target = new HttpTarget({ url, binary: a.flags.has('binary'), seed, maxSockets: maxConcurrency + 16 });
  const version = a.values.version;
  try {
    // Fail early with the server's words if the model is not there.
    await target.generator(model, version);
    const statsPath = `/v2/models/${encodeURIComponent(model)}${version ? `/versions/${encodeURIComponent(version)}` : ''}/stats`;
    let statsAvailable = true;
    // an ensemble: its composing models' statistics too (perf_analyzer's "Composing models" section)
    const composing = composingModelsOf(await target.getJson(`/v2/models/${encodeURIComponent(model)}${version ? `/versions/${encodeURIComponent(version)}` : ''}/config`).catch(() => undefined));
    const serverStats = async () => {
      if (!statsAvailable) return undefined;
      try {
        const own = readModelStats(await target.getJson(statsPath), model, version);
        if (composing.length > 0) {
          own.composing = {};
          for (const m of composing) {
            const doc = await target.getJson(`/v2/models/${encodeURIComponent(m.name)}${m.version ? `/versions/${m.version}` : ''}/stats`);
            // the latest version a step runs: the versions the server reports for that model
            const versions = m.version ?? ((doc as { model_stats?: Array<{ name?: string; version?: string }> }).model_stats ?? [])
              .filter((row) => row.name === m.name).map((row) => row.version).join(',');
            own.composing[`${m.name}:${versions}`] = readModelStats(doc, m.name, m.version);
          }
        }
        return own;
      } catch {
        statsAvailable = false;
        return undefined;
      }
    };
    out('*** Measurement Settings ***');
    out(`  Batch size: ${batch}`);
    out(`  Service Kind: Triton (KServe v2 over HTTP${a.flags.has('binary') ? ', binary tensors' : ''})`);
    out(`  Using "time_windows" mode for stabilization`);
    out(`  Measurement window: ${interval} msec`);
    out(modes[0].kind === 'concurrency' ? '  Using synchronous calls for inference' : `  Using ${distribution} request distribution`);
    out(`  Stabilizing using ${percentile === undefined ? 'average' : `p${percentile}`} latency`);
    out('');
    const steps: StepResult[] = [];
    const tty = process.stderr.isTTY;
    for (const mode of modes) {
      const label = mode.kind === 'concurrency' ? `concurrency ${mode.concurrency}` : `rate ${mode.rate}/s`;
      const step = await runPerfStep(target, { model, version, batchSize: batch, shape }, mode, {
        measurementIntervalMs: interval,
        percentile,
        stabilityPercent: stability,
        maxTrials,
        serverStats,
        onWindow: (w) => {
          const line = `  [${label}] window ${w.trial}/${maxTrials}: ${w.throughput.toFixed(1)} infer/sec, ${percentile === undefined ? 'avg' : `p${percentile}`} ${Math.round(w.latency_us)} usec, sent ${w.sent}, answered ${w.answered}, errors ${w.errors}`;
          progress(tty ? `\r\x1b[K${line}` : `${line}\n`);
        },
      });
      if (tty) progress('\r\x1b[K');
      steps.push(step);
      out(stepSummary(step, percentile));
      out('');
    }
    out(closingTable(steps, percentile));
    if (a.values.csv) {
      writeFileSync(a.values.csv, toCsv(steps));
      out(`\nwrote ${a.values.csv}`);
    }
    return steps.every((s) => s.request_count > 0) ? 0 : 1;
  } finally {
    target.close();
  }
}

const command: Command = {
  name: ['perf'],
  summary: 'perf_analyzer-style throughput/latency measurement against a running server',
  help,
  run: reportingErrors('perf', (argv) => perf(argv)),
};
export default command;
