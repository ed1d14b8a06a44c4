/**
 * The sweep loop: apply a config LIVE (no reload: the running server changes its batcher and instance
 * count in place, which Triton's Model Analyzer cannot do), drive the same traffic, measure until stable,
 * record. The server and the load are injected, so the loop and its pruning are tested on their own.
 */
import { configKey, describeConfig, lineKey, type SweepConfig } from './search-space';
import type { SweepResult } from '@inferscope/core';

export interface SweepDeps {
  /** make `c` the model's live configuration; resolves once it is in force (instances started) */
  apply(c: SweepConfig): Promise<void>;
  /** run the traffic and measure until stable; the same traffic every call */
  measure(c: SweepConfig): Promise<Omit<SweepResult, 'config'>>;
  log?(line: string): void;
}

export interface SweepOptions {
  /** 'grid' tries everything; 'prune' skips what two measured neighbours already dominate */
  search: 'grid' | 'prune';
  /** measurements per config (the result keeps the medians and the range) */
  repeat?: number;
}

/** Spaces up to this size are searched whole: pruning saves little there and could skip the answer. */
export const GRID_UP_TO = 30;

export function searchFor(requested: 'auto' | 'grid' | 'prune', configs: number): 'grid' | 'prune' {
  return requested === 'auto' ? (configs <= GRID_UP_TO ? 'grid' : 'prune') : requested;
}

export interface SweepRun {
  results: SweepResult[];
  skipped: Array<{ config: SweepConfig; reason: string }>;
}

/**
 * Re-measures the `top` leaders (by `order`) and keeps the second figures. The best of many noisy
 * measurements is biased upwards (the winner's curse): a config that won on a lucky window would otherwise
 * be reported at its luckiest. Returns the results with the leaders' figures replaced.
 */
export async function confirmLeaders(run: SweepRun, deps: SweepDeps, top: number, order: (rs: SweepResult[]) => SweepResult[]): Promise<SweepResult[]> {
  const leaders = order(run.results).slice(0, top);
  const fresh = new Map<string, SweepResult>();
  for (const r of leaders) {
    await deps.apply(r.config);
    const again: SweepResult = { config: r.config, ...(await deps.measure(r.config)) };
    deps.log?.(`confirm ${describeConfig(r.config)}: ${r.throughput_per_s.toFixed(0)} -> ${again.throughput_per_s.toFixed(0)} infer/s, p99 ${(again.latency_us.p99 / 1000).toFixed(2)} ms`);
    fresh.set(configKey(r.config), again);
  }
  return run.results.map((r) => fresh.get(configKey(r.config)) ?? r);
}

/** Throughput gains below this along the delay axis are noise, not a reason to wait longer. */
const MIN_GAIN = 0.02;

/** Median of a list (the list is not empty). */
function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Measures a config `repeat` times: the medians of each figure, the range of throughput and p99. */
async function measureRepeated(c: SweepConfig, deps: SweepDeps, repeat: number): Promise<SweepResult> {
  const runs: Array<Omit<SweepResult, 'config'>> = [];
  for (let i = 0; i < repeat; i++) runs.push(await deps.measure(c));
  if (repeat === 1) return { config: c, ...runs[0] };
  const m = (f: (r: Omit<SweepResult, 'config'>) => number) => median(runs.map(f));
  const range = (f: (r: Omit<SweepResult, 'config'>) => number): [number, number] => [Math.min(...runs.map(f)), Math.max(...runs.map(f))];
  return {
    config: c,
    throughput_per_s: m((r) => r.throughput_per_s),
    latency_us: { p50: m((r) => r.latency_us.p50), p95: m((r) => r.latency_us.p95), p99: m((r) => r.latency_us.p99) },
    avg_batch: m((r) => r.avg_batch),
    queue_us: m((r) => r.queue_us),
    compute_us: m((r) => r.compute_us),
    memory_bytes: Math.max(...runs.map((r) => r.memory_bytes)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    stable: runs.every((r) => r.stable),
    spread: { repeats: repeat, throughput_per_s: range((r) => r.throughput_per_s), p99_us: range((r) => r.latency_us.p99) },
  };
}

/** A longer delay that bought no throughput at a higher p99 than the delay before it on the same line. */
function dominatedStep(prev: SweepResult | undefined, r: SweepResult): boolean {
  return prev !== undefined && r.throughput_per_s < prev.throughput_per_s * (1 + MIN_GAIN) && r.latency_us.p99 > prev.latency_us.p99;
}

/**
 * The sweep. Pruning never uses the latency budget: past the budget a longer delay can still LOWER p99
 * (an overloaded model drains its queue faster with bigger batches), so skipping there hid the answer.
 * It skips the rest of a line (all but the delay) only after two consecutive longer delays each bought
 * no throughput at a higher p99: the second is the measured neighbour that confirms the first.
 */
export async function runSweep(configs: readonly SweepConfig[], deps: SweepDeps, opts: SweepOptions): Promise<SweepRun> {
  const results: SweepResult[] = [];
  const skipped: SweepRun['skipped'] = [];
  const repeat = Math.max(1, Math.floor(opts.repeat ?? 1));
  /** per line (all but the delay): why the rest of the line is skipped, once it is */
  const closedLines = new Map<string, string>();
  const lastOnLine = new Map<string, SweepResult>();
  /** per line: the delay whose step was dominated, waiting for its neighbour to confirm */
  const suspect = new Map<string, SweepResult>();
  for (const [i, c] of configs.entries()) {
    const line = lineKey(c);
    const closed = opts.search === 'prune' ? closedLines.get(line) : undefined;
    if (closed) {
      skipped.push({ config: c, reason: closed });
      deps.log?.(`[${i + 1}/${configs.length}] skip ${describeConfig(c)}: ${closed}`);
      continue;
    }
    await deps.apply(c);
    const r = await measureRepeated(c, deps, repeat);
    results.push(r);
    deps.log?.(`[${i + 1}/${configs.length}] ${describeConfig(c)}: ${r.throughput_per_s.toFixed(0)} infer/s, p99 ${(r.latency_us.p99 / 1000).toFixed(2)} ms, batch ${r.avg_batch.toFixed(1)}${r.stable ? '' : ' (not stable)'}`);
    const prev = lastOnLine.get(line);
    lastOnLine.set(line, r);
    if (!dominatedStep(prev, r)) {
      suspect.delete(line);
      continue;
    }
    const first = suspect.get(line);
    if (first) {
      closedLines.set(line, `delays ${first.config.max_queue_delay_microseconds} and ${c.max_queue_delay_microseconds} µs each gained under ${MIN_GAIN * 100}% throughput over the delay before them at a higher p99`);
    } else suspect.set(line, r);
  }
  return { results, skipped };
}
