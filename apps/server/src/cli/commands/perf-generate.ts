/**
 * `inferscope perf` on a generative model (decoupled, text_input -> text_output: Triton's generate
 * extension): genai-perf / AIPerf's profile instead of perf_analyzer's. Synthetic prompts and output
 * lengths (their flag names), streamed over HTTP generate_stream or gRPC ModelStreamInfer, under each concurrency or request rate
 * of the run; per step the LLM metrics table (time to first token, inter-token latency, request latency,
 * sequence lengths, output token and request throughput).
 */
import { isDecoupled, type ModelConfig } from '@inferscope/core/config';
import { numberArg } from '../../args/args';
import { GENERATE_IO } from '../../generate/generative-model';
import { readMaxSeqLen } from '@inferscope/core/iterative';
import { httpGenerateStream, type GenSend } from '../../clients/generate/gen-stream';
import { grpcGenerateStream } from '../../clients/generate/gen-grpc-stream';
import { runGenLoad, type GenLoadMode } from '../../clients/generate/gen-load';
import { syntheticAsks, type GenLengths } from '../../clients/generate/gen-workload';
import { genPerfFigures, genPerfTable } from '../../clients/generate/gen-figures';

/** genai-perf's options (perf's spec table takes them; they are refused for any other model). */
export const GENERATE_SPECS = [
  { names: ['--synthetic-input-tokens-mean'], key: 'inputMean' },
  { names: ['--synthetic-input-tokens-stddev'], key: 'inputStddev' },
  { names: ['--output-tokens-mean'], key: 'outputMean' },
  { names: ['--output-tokens-stddev'], key: 'outputStddev' },
  { names: ['--request-count'], key: 'requestCount' },
  { names: ['--warmup-request-count'], key: 'warmupCount' },
];

/** perf_analyzer's options that mean nothing to a generation (refused rather than ignored). */
const TENSOR_KEYS: Record<string, string> = {
  batch: '-b/--batch-size', shape: '--shape', binary: '--binary', interval: '--measurement-interval', percentile: '--percentile',
  stability: '--stability-percentage', trials: '--max-trials', csv: '-f/--latency-report-file', seqLength: '--sequence-length',
  seqVariation: '--sequence-length-variation', seqIds: '--sequence-id-range', seqOpen: '--num-of-sequences',
};

/** A model served through the generate extension: decoupled, a text_input in and a text_output out. */
export function isGenerativeConfig(config: unknown): boolean {
  const c = config as { input?: Array<{ name?: string }>; output?: Array<{ name?: string }> } | undefined;
  return !!c && isDecoupled(c as never) && !!c.input?.some((t) => t.name === GENERATE_IO.text) && !!c.output?.some((t) => t.name === GENERATE_IO.output);
}

/** The genai-perf options given for a model that is not generative, to refuse them by name. */
export function generateOptionsGiven(values: Record<string, string | undefined>): string[] {
  return GENERATE_SPECS.filter((s) => values[s.key] !== undefined).map((s) => s.names[0]!);
}

export interface PerfGenerateArgs {
  /** http://host:port for HTTP, host:port for gRPC */
  url: string;
  model: string;
  version?: string;
  protocol: string;
  config: unknown;
  values: Record<string, string | undefined>;
  flags: Set<string>;
  modes: GenLoadMode[];
  seed: number;
}

export async function perfGenerate(a: PerfGenerateArgs, out: (s: string) => void): Promise<number> {
  const refused = Object.keys(TENSOR_KEYS).filter((k) => a.values[k] !== undefined || a.flags.has(k)).map((k) => TENSOR_KEYS[k]);
  if (refused.length) throw new Error(`model '${a.model}' is generative (generate_stream): ${refused.join(', ')} do not apply to it (genai-perf's options do: --synthetic-input-tokens-mean, --output-tokens-mean, --request-count, ...)`);
  const lengths = {
    inputMean: numberArg(a.values.inputMean, '--synthetic-input-tokens-mean', 32, { integer: true, min: 1, max: 1 << 20 }),
    inputStddev: numberArg(a.values.inputStddev, '--synthetic-input-tokens-stddev', 0, { min: 0 }),
    outputMean: numberArg(a.values.outputMean, '--output-tokens-mean', 32, { integer: true, min: 1, max: 1 << 20 }),
    outputStddev: numberArg(a.values.outputStddev, '--output-tokens-stddev', 0, { min: 0 }),
  };
  const warmup = numberArg(a.values.warmupCount, '--warmup-request-count', 0, { integer: true, min: 0, max: 1_000_000 });
  // the server's config as it reported it: a model it serves has a readable max_seq_len
  const seq = readMaxSeqLen(a.config as Pick<ModelConfig, 'name' | 'parameters'>);
  const maxSeqLen = typeof seq === 'number' ? seq : undefined;
  const grpc = a.protocol === 'grpc' ? grpcGenerateStream(a.url, a.model, a.version) : undefined;
  const send: GenSend = grpc ?? httpGenerateStream(a.url, a.model, a.version);
  try {
    return await profile(a, send, lengths, warmup, maxSeqLen, out);
  } finally {
    grpc?.close();
  }
}

async function profile(a: PerfGenerateArgs, send: GenSend, lengths: GenLengths, warmup: number, maxSeqLen: number | undefined, out: (s: string) => void): Promise<number> {
  out('*** Measurement Settings ***');
  out(a.protocol === 'grpc'
    ? '  Service Kind: Triton (gRPC ModelStreamInfer, one response per token)'
    : '  Service Kind: Triton generate extension (HTTP generate_stream, one response per token)');
  out(`  Input tokens: mean ${lengths.inputMean}, stddev ${lengths.inputStddev}; output tokens (max_tokens): mean ${lengths.outputMean}, stddev ${lengths.outputStddev}${maxSeqLen ? ` (prompt + output capped at max_seq_len ${maxSeqLen})` : ''}`);
  out('');
  let failures = 0;
  for (const [i, mode] of a.modes.entries()) {
    const count = numberArg(a.values.requestCount, '--request-count', mode.kind === 'concurrency' ? Math.max(10, 4 * mode.concurrency) : 10, { integer: true, min: 1, max: 1_000_000 });
    const seed = a.seed + i;
    if (warmup > 0) await runGenLoad(send, syntheticAsks(lengths, warmup, seed + 1_000_003, maxSeqLen), mode);
    const f = genPerfFigures(await runGenLoad(send, syntheticAsks(lengths, count, seed, maxSeqLen), mode));
    failures += f.errors;
    out(mode.kind === 'concurrency' ? `Concurrency: ${mode.concurrency}` : `Request rate: ${mode.rate}/s (${mode.distribution})`);
    out(genPerfTable(f));
    out('');
  }
  return failures === 0 ? 0 : 1;
}
