/**
 * The sweep loop: apply a config LIVE (no reload: the running server changes its batcher and instance
 * count in place, which Triton's Model Analyzer cannot do), drive the same traffic, measure until stable,
 * record. The server and the load are injected, so the loop and its pruning are tested on their own.
 */
import { configKey, describeConfig, lineKey, type SweepConfig } from './search-space';
import type { SweepResult } from './ranking';

export interface SweepDeps {
  /** make `c` the model's live configuration; resolves once it is in force (instances started) */
  apply(c: SweepConfig): Promise<void>;
  /** run the traffic and measure until stable; the same traffic every call */
  measure(c: SweepConfig): Promise<Omit<SweepResult, 'config'>>;
  log?(line: string): void;
}

export interface SweepOptions {
  /** 'grid' tries everything; 'prune' skips what a measured neighbour already dominates */
  search: 'grid' | 'prune';
  latencyBudgetUs?: number;
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

export async function runSweep(configs: readonly SweepConfig[], deps: SweepDeps, opts: SweepOptions): Promise<SweepRun> {
  const results: SweepResult[] = [];
  const skipped: SweepRun['skipped'] = [];
  /** per line (all but the delay): why the rest of the line is skipped, once it is */
  const closedLines = new Map<string, string>();
  const lastOnLine = new Map<string, SweepResult>();
  for (const [i, c] of configs.entries()) {
    const line = lineKey(c);
    const closed = opts.search === 'prune' ? closedLines.get(line) : undefined;
    if (closed) {
      skipped.push({ config: c, reason: closed });
      deps.log?.(`[${i + 1}/${configs.length}] skip ${describeConfig(c)}: ${closed}`);
      continue;
    }
    await deps.apply(c);
    const r: SweepResult = { config: c, ...(await deps.measure(c)) };
    results.push(r);
    deps.log?.(`[${i + 1}/${configs.length}] ${describeConfig(c)}: ${r.throughput_per_s.toFixed(0)} infer/s, p99 ${(r.latency_us.p99 / 1000).toFixed(2)} ms, batch ${r.avg_batch.toFixed(1)}${r.stable ? '' : ' (not stable)'}`);
    const prev = lastOnLine.get(line);
    lastOnLine.set(line, r);
    // A longer delay only adds waiting: past the budget it stays past it.
    if (opts.latencyBudgetUs !== undefined && r.latency_us.p99 > opts.latencyBudgetUs) {
      closedLines.set(line, `a shorter delay on this line was already over the latency budget (p99 ${(r.latency_us.p99 / 1000).toFixed(2)} ms)`);
    } else if (prev && r.throughput_per_s < prev.throughput_per_s * (1 + MIN_GAIN) && r.latency_us.p99 > prev.latency_us.p99) {
      // Waiting longer bought no throughput and cost latency: longer delays are dominated too.
      closedLines.set(line, `delay ${c.max_queue_delay_microseconds} µs gained under ${MIN_GAIN * 100}% throughput over ${prev.config.max_queue_delay_microseconds} µs at a higher p99`);
    }
  }
  return { results, skipped };
}
