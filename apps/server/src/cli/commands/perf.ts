/**
 * `inferscope perf`: a perf_analyzer-style client. Runs steps of concurrency or request rate against a
 * server's KServe endpoint, prints perf_analyzer's per-step summary and closing table, and writes its CSV.
 */
import { writeFileSync } from 'node:fs';
import { reportingErrors, type Command } from '../command';
import { parseArgs, numberArg, normaliseUrl } from '../../args/args';
import { HttpTarget } from '../../loadgen/targets';
import { GrpcTarget } from '../../clients/perf/grpc-target';
import { runPerfStep, parseRange, type StepResult } from '../../clients/perf/perf-step';
import { composingModelsOf, readModelStats } from '../../clients/perf/server-stats';
import { closingTable, stepSummary, toCsv } from '../../clients/perf/perf-report';
import type { StepMode } from '../../clients/perf/step-load';
import { isStateful, parseSequenceIdRange, SEQUENCE_DEFAULTS, SequenceSlots } from '../../loadgen/sequences';
import { GENERATE_SPECS, generateOptionsGiven, isGenerativeConfig, perfGenerate } from './perf-generate';

const help = `Usage: inferscope perf -m MODEL [options]

Measures throughput and latency of a model the way Triton's perf_analyzer does.

  -m, --model MODEL              model name (required)
  -x, --model-version V          model version (default: the server's choice)
  -i, --protocol P               http (default) or grpc (Triton's GRPCInferenceService, raw tensors)
  -u, --url URL                  server (default http://127.0.0.1:8000, or 127.0.0.1:8001 for grpc;
                                 host:port works too)
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
  -v, --verbose                  print each measurement window as it ends (on stderr)
  -f, --latency-report-file CSV  write perf_analyzer's CSV there
  --seed N                       seed for input data and Poisson gaps (default 1)

  A stateful model (sequence_batching in its config) gets sequences, as perf_analyzer sends them:
  --sequence-length N            requests per sequence (default 20), the first flagged START, the last END
  --sequence-length-variation P  each sequence's length varies by up to P percent either way (default 20)
  --sequence-id-range A[:B]      correlation ids from A up to B (excluded; default 1, unbounded)
  --num-of-sequences N           sequences open at once under --request-rate-range (default 4); under a
                                 concurrency each client runs its own sequences one after another

  A generative model (decoupled, text_input -> text_output) is profiled as genai-perf / AIPerf do:
  synthetic prompts streamed over HTTP generate_stream (or gRPC ModelStreamInfer with -i grpc), under
  each concurrency or request rate; it reports time to first token, inter-token latency, request
  latency, input and output lengths (avg/min/max/p99/p90/p50), output token and request throughput.
  An output token is one streamed response; an input token is one byte of the prompt (the bundled
  models are byte-level).
  --synthetic-input-tokens-mean N    prompt length (default 32)
  --synthetic-input-tokens-stddev N  its standard deviation (default 0)
  --output-tokens-mean N             output length, sent as max_tokens (default 32)
  --output-tokens-stddev N           its standard deviation (default 0)
  --request-count N                  measured requests per step (default max(10, 4 x concurrency))
  --warmup-request-count N           requests sent first and not measured (default 0)
`;

const specs = [
  { names: ['-m', '--model'], key: 'model' },
  { names: ['-x', '--model-version'], key: 'version' },
  { names: ['-u', '--url'], key: 'url' },
  { names: ['-i', '--protocol'], key: 'protocol' },
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
  { names: ['-v', '--verbose'], key: 'verbose', flag: true },
  { names: ['-f', '--latency-report-file'], key: 'csv' },
  { names: ['--seed'], key: 'seed' },
  { names: ['--sequence-length'], key: 'seqLength' },
  { names: ['--sequence-length-variation'], key: 'seqVariation' },
  { names: ['--sequence-id-range'], key: 'seqIds' },
  { names: ['--num-of-sequences'], key: 'seqOpen' },
  ...GENERATE_SPECS,
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
  const protocol = (a.values.protocol ?? 'http').toLowerCase();
  if (protocol !== 'http' && protocol !== 'grpc') throw new Error(`-i/--protocol must be http or grpc, got '${a.values.protocol}'`);
  const maxConcurrency = Math.max(...modes.map((m) => (m.kind === 'concurrency' ? m.concurrency : 64)));
  const version = a.values.version;
  const modelPath = (m: string, v?: string) => `/v2/models/${encodeURIComponent(m)}${v ? `/versions/${encodeURIComponent(v)}` : ''}`;
  let target: HttpTarget | GrpcTarget;
  // the statistics and config documents (Triton's JSON shape either way) over the chosen protocol
  let statsDoc: (m: string, v?: string) => Promise<unknown>;
  let configDoc: (m: string, v?: string) => Promise<unknown>;
  let statsNote: string | undefined;
  if (protocol === 'grpc') {
    const grpc = new GrpcTarget(grpcAddress(a.values.url), seed);
    statsDoc = (m, v) => grpc.statistics(m, v);
    configDoc = (m, v) => grpc.config(m, v);
    target = grpc;
  } else {
    const http = new HttpTarget({ url: normaliseUrl(a.values.url), binary: a.flags.has('binary'), seed, maxSockets: maxConcurrency + 16 });
    statsDoc = (m, v) => http.getJson(`${modelPath(m, v)}/stats`);
    // Behind `inferscope fleet`'s balancer one statistics read reaches ONE replica (it reported 11,895 of
    // 26,477 requests): read every replica through its own prefix and sum them.
    const replicas = await fleetReplicas(http);
    if (replicas.length > 0) {
      statsDoc = async (m, v) => ({ model_stats: (await Promise.all(replicas.map((r) => http.getJson(`${r}${modelPath(m, v)}/stats`)))).flatMap((d) => (d as { model_stats?: unknown[] }).model_stats ?? []) });
      statsNote = `  Server statistics: the sum of ${replicas.length} replicas behind the balancer (${replicas.join(', ')})`;
    }
    configDoc = (m, v) => http.getJson(`${modelPath(m, v)}/config`);
    target = http;
  }
  try {
    // Fail early with the server's words if the model is not there.
    await target.check(model, version);
    let statsAvailable = true;
    const config = await configDoc(model, version).catch(() => undefined);
    if (isGenerativeConfig(config)) {
      return await perfGenerate({
        url: protocol === 'grpc' ? grpcAddress(a.values.url) : normaliseUrl(a.values.url), model, version, protocol, config, values: a.values, flags: a.flags, seed,
        modes: modes.map((m) => (m.kind === 'rate' ? { ...m, seed: m.seed ?? seed } : m)),
      }, out);
    }
    const genOptions = generateOptionsGiven(a.values);
    if (genOptions.length) throw new Error(`${genOptions.join(', ')} apply to a generative model (decoupled, text_input -> text_output); '${model}' is not one`);
    // an ensemble: its composing models' statistics too (perf_analyzer's "Composing models" section)
    const composing = composingModelsOf(config);
    const sequences = sequencesFor(config, a.values, modes, seed);
    const serverStats = async () => {
      if (!statsAvailable) return undefined;
      try {
        const own = readModelStats(await statsDoc(model, version), model, version);
        if (composing.length > 0) {
          own.composing = {};
          for (const m of composing) {
            const doc = await statsDoc(m.name, m.version);
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
    out(protocol === 'grpc'
      ? '  Service Kind: Triton (KServe v2 over gRPC, raw tensors)'
      : `  Service Kind: Triton (KServe v2 over HTTP${a.flags.has('binary') ? ', binary tensors' : ''})`);
    out(`  Using "time_windows" mode for stabilization`);
    out(`  Measurement window: ${interval} msec`);
    out(modes[0].kind === 'concurrency' ? '  Using synchronous calls for inference' : `  Using ${distribution} request distribution`);
    out(`  Stabilizing using ${percentile === undefined ? 'average' : `p${percentile}`} latency`);
    if (sequences) out(`  Sequences: about ${sequences.length} requests each (±${sequences.variationPct}%), correlation ids from ${sequences.idStart}${sequences.idEnd === undefined ? '' : ` to ${sequences.idEnd - 1}`}`);
    if (statsNote) out(statsNote);
    out('');
    const steps: StepResult[] = [];
    const tty = process.stderr.isTTY;
    const verbose = a.flags.has('verbose');
    for (const mode of modes) {
      const label = mode.kind === 'concurrency' ? `concurrency ${mode.concurrency}` : `rate ${mode.rate}/s`;
      const step = await runPerfStep(target, { model, version, batchSize: batch, shape }, mode, {
        measurementIntervalMs: interval,
        percentile,
        stabilityPercent: stability,
        maxTrials,
        serverStats,
        ...(sequences ? { sequences: { slots: sequences.slots, open: mode.kind === 'concurrency' ? mode.concurrency : sequences.open } } : {}),
        // perf_analyzer prints its windows only when asked (-v)
        onWindow: verbose ? (w) => {
          const line = `  [${label}] window ${w.trial}/${maxTrials}: ${w.throughput.toFixed(1)} infer/sec, ${percentile === undefined ? 'avg' : `p${percentile}`} ${Math.round(w.latency_us)} usec, sent ${w.sent}, answered ${w.answered}, errors ${w.errors}`;
          progress(tty ? `\r\x1b[K${line}` : `${line}\n`);
        } : undefined,
      });
      if (tty && verbose) progress('\r\x1b[K');
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

/**
 * The sequences of a stateful model's run (one set for every step, so ids stay unique across steps);
 * undefined for a stateless model, where the sequence options are refused rather than ignored.
 */
function sequencesFor(config: unknown, values: Record<string, string | undefined>, modes: StepMode[], seed: number) {
  const given = ['seqLength', 'seqVariation', 'seqIds', 'seqOpen'].filter((k) => values[k] !== undefined);
  if (!isStateful(config)) {
    if (given.length > 0) throw new Error('--sequence-length, --sequence-length-variation, --sequence-id-range and --num-of-sequences apply to a stateful model (sequence_batching in its config)');
    return undefined;
  }
  const length = numberArg(values.seqLength, '--sequence-length', SEQUENCE_DEFAULTS.length, { integer: true, min: 1, max: 1_000_000 });
  const variationPct = numberArg(values.seqVariation, '--sequence-length-variation', SEQUENCE_DEFAULTS.variationPct, { min: 0, max: 100 });
  const open = numberArg(values.seqOpen, '--num-of-sequences', SEQUENCE_DEFAULTS.numOfSequences, { integer: true, min: 1, max: 100_000 });
  const ids = values.seqIds === undefined ? { idStart: SEQUENCE_DEFAULTS.idStart } : parseSequenceIdRange(values.seqIds);
  const slots = Math.max(...modes.map((m) => (m.kind === 'concurrency' ? m.concurrency : open)));
  const options = { length, variationPct, ...ids, seed };
  return { ...options, open, slots: new SequenceSlots(options, slots) };
}

/** The replicas' path prefixes when the URL is `inferscope fleet`'s balancer (its /fleet.json), else []. */
async function fleetReplicas(http: HttpTarget): Promise<string[]> {
  try {
    const doc = (await http.getJson('/fleet.json')) as { replicas?: Array<{ path?: unknown }> };
    return (doc.replicas ?? []).map((r) => r.path).filter((p): p is string => typeof p === 'string' && p.startsWith('/'));
  } catch {
    return [];
  }
}

/** -u for gRPC: host:port (a URL's scheme and path are dropped); default 127.0.0.1:8001. */
function grpcAddress(url: string | undefined): string {
  if (!url) return '127.0.0.1:8001';
  const bare = url.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  return /:\d+$/.test(bare) ? bare : `${bare}:8001`;
}

const command: Command = {
  name: ['perf'],
  summary: 'perf_analyzer-style throughput/latency measurement against a running server',
  help,
  run: reportingErrors('perf', (argv) => perf(argv)),
};
export default command;
