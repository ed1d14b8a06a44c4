/**
 * The configurations a sweep tries: instance count x max_batch_size x max_queue_delay x preferred sizes.
 * Pure: the order of the grid and the pruning rule are tested without a server.
 */
import type { SweepConfig } from '@inferscope/core';
import { strictNumber } from '@inferscope/core/config';
import { sweepConfigKey as configKey } from '@inferscope/core/load';

/** Declared once in the live protocol (the dashboard's Sweep panel reads the same shape). */
export type { SweepConfig };

export interface SearchSpace {
  instances: number[];
  maxBatch: number[];
  delayUs: number[];
  /** 'none' (no preferred sizes), 'max' ([max_batch_size]) or explicit lists */
  preferred: Array<'none' | 'max' | number[]>;
}

/** one config's key (core's, which the ranking uses too) */
export { configKey };

export function describeConfig(c: SweepConfig): string {
  const pref = c.preferred_batch_size.length ? `[${c.preferred_batch_size.join(',')}]` : 'none';
  return `instances ${c.instances}, max_batch ${c.max_batch_size}, delay ${c.max_queue_delay_microseconds} µs, preferred ${pref}`;
}

/**
 * Every combination, grouped so that a live sweep changes as little as possible between neighbours
 * (instances outermost: starting instances is the slowest change; delay innermost: the cheapest, and the
 * axis the pruning rule walks). Preferred sizes above max_batch_size are dropped (Triton refuses them).
 */
export function gridConfigs(space: SearchSpace): SweepConfig[] {
  const out: SweepConfig[] = [];
  const seen = new Set<string>();
  for (const instances of space.instances) {
    for (const max of space.maxBatch) {
      for (const pref of space.preferred) {
        const sizes = pref === 'none' ? [] : pref === 'max' ? [max] : pref.filter((p) => p <= max);
        if (Array.isArray(pref) && sizes.length === 0) continue;
        for (const delay of [...space.delayUs].sort((a, b) => a - b)) {
          const c = { instances, max_batch_size: max, max_queue_delay_microseconds: delay, preferred_batch_size: sizes };
          if (!seen.has(configKey(c))) {
            seen.add(configKey(c));
            out.push(c);
          }
        }
      }
    }
  }
  return out;
}

/**
 * The pruning rule of the smart search: within one (instances, max_batch, preferred) line, the delay only
 * adds waiting. Once a delay's p99 is over the latency budget AND its throughput did not beat the best
 * in-budget point of the line, every longer delay of that line is dominated (more latency, no more
 * throughput at the same offered load) and is skipped.
 */
export function lineKey(c: SweepConfig): string {
  return `i${c.instances}/b${c.max_batch_size}/p${c.preferred_batch_size.join('+') || '-'}`;
}

export function parseList(text: string, what: string, min: number): number[] {
  const out = text.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const n = strictNumber(s, true);
    if (!Number.isInteger(n) || n < min) throw new Error(`${what}: '${s}' is not an integer >= ${min}`);
    return n;
  });
  if (out.length === 0) throw new Error(`${what}: give at least one value`);
  return [...new Set(out)];
}

/** `none`, `max`, or `4+8` style lists, comma separated: `none,max,4+8`. */
export function parsePreferred(text: string): SearchSpace['preferred'] {
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    if (s === 'none' || s === 'max') return s;
    return parseList(s.replaceAll('+', ','), '--preferred', 1);
  });
}
