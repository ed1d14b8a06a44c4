/**
 * genai-perf / AIPerf's figures of a generative run, from its requests' records: time to first token,
 * inter-token latency ((last token - first token) / (tokens - 1), per request), request latency, input and
 * output sequence lengths (each avg / min / max / p50 / p90 / p99 over the successful requests), output
 * token throughput and request throughput over the run (first send to last end). Failed requests are
 * counted, not measured. The bench folds the simulator's events into the same records, so the server and
 * the prediction are measured by this one definition.
 */
import { percentilesOf, type Percentiles } from '@inferscope/core/stats';
import type { GenRecord } from './gen-stream';

/** genai-perf's columns: core's percentiles plus the mean and the smallest */
export interface Dist extends Percentiles {
  avg: number;
  min: number;
}

export interface GenPerfFigures {
  requests: number;
  errors: number;
  /** the first error message and how many requests failed with it */
  errorSample?: string;
  ttftMs?: Dist;
  itlMs?: Dist;
  latencyMs?: Dist;
  inputTokens?: Dist;
  outputTokens?: Dist;
  outputTokensPerS: number;
  requestsPerS: number;
  durationS: number;
}

export function dist(values: readonly number[]): Dist | undefined {
  if (values.length === 0) return undefined;
  const sum = values.reduce((a, b) => a + b, 0);
  return { ...percentilesOf(values), avg: sum / values.length, min: Math.min(...values) };
}

export function genPerfFigures(records: readonly GenRecord[]): GenPerfFigures {
  const ok = records.filter((r) => r.error === undefined && r.tokenMs.length > 0);
  const failed = records.filter((r) => r.error !== undefined);
  const durationS = records.length ? (Math.max(...records.map((r) => r.endMs)) - Math.min(...records.map((r) => r.sentMs))) / 1000 : 0;
  const tokens = ok.reduce((n, r) => n + r.tokenMs.length, 0);
  const perS = (n: number) => (durationS > 0 ? n / durationS : 0);
  return {
    requests: records.length,
    errors: failed.length,
    ...(failed[0] ? { errorSample: failed[0].error } : {}),
    ttftMs: dist(ok.map((r) => r.tokenMs[0]! - r.sentMs)),
    itlMs: dist(ok.filter((r) => r.tokenMs.length > 1).map((r) => (r.tokenMs[r.tokenMs.length - 1]! - r.tokenMs[0]!) / (r.tokenMs.length - 1))),
    latencyMs: dist(ok.map((r) => r.endMs - r.sentMs)),
    inputTokens: dist(ok.map((r) => r.inputTokens)),
    outputTokens: dist(ok.map((r) => r.tokenMs.length)),
    outputTokensPerS: perS(tokens),
    requestsPerS: perS(ok.length),
    durationS,
  };
}

const ROWS: [string, keyof GenPerfFigures][] = [
  ['Time to first token (ms)', 'ttftMs'],
  ['Inter token latency (ms)', 'itlMs'],
  ['Request latency (ms)', 'latencyMs'],
  ['Output sequence length (tokens)', 'outputTokens'],
  ['Input sequence length (tokens)', 'inputTokens'],
];

/** genai-perf's console table (its statistics, with p50 for its p75), then the two throughputs. */
export function genPerfTable(f: GenPerfFigures): string {
  const cols = ['avg', 'min', 'max', 'p99', 'p90', 'p50'] as const;
  const w = 32;
  const cell = (v: number) => v.toFixed(2).padStart(10);
  const lines = [`${'Statistic'.padEnd(w)}${cols.map((c) => c.padStart(10)).join('')}`];
  for (const [label, key] of ROWS) {
    const d = f[key] as Dist | undefined;
    lines.push(`${label.padEnd(w)}${d ? cols.map((c) => cell(d[c])).join('') : '       n/a'.repeat(cols.length)}`);
  }
  lines.push(`${'Output token throughput (per sec)'.padEnd(w)}${cell(f.outputTokensPerS)}`);
  lines.push(`${'Request throughput (per sec)'.padEnd(w)}${cell(f.requestsPerS)}`);
  lines.push(`Requests: ${f.requests} over ${f.durationS.toFixed(2)} s, ${f.errors} failed${f.errorSample ? ` (first: ${f.errorSample})` : ''}`);
  return lines.join('\n');
}
