/** The Sweep panel's text fields as a startSweep request (pure; errors name the field). */
import type { StartSweepRequest, SweepConfig } from '@inferscope/core';

export interface SweepForm {
  instances: string;
  maxBatch: string;
  delayUs: string;
  /** `none,max,4+8` like `inferscope analyze --preferred` */
  preferred: string;
  concurrency: number;
  budgetMs: string;
  intervalMs: number;
}

export const DEFAULT_FORM: SweepForm = { instances: '1,2', maxBatch: '', delayUs: '0,1000,4000', preferred: 'none,max', concurrency: 16, budgetMs: '', intervalMs: 1000 };

function ints(text: string, field: string, min: number): number[] | undefined {
  if (text.trim() === '') return undefined;
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < min) throw new Error(`${field}: '${s}' is not an integer >= ${min}`);
    return n;
  });
}

export function toRequest(model: string, version: string, f: SweepForm): StartSweepRequest {
  const delay = ints(f.delayUs, 'delay (µs)', 0);
  if (!delay) throw new Error('delay (µs): give at least one value');
  const preferred = f.preferred.split(',').map((s) => s.trim()).filter(Boolean).map((s) =>
    s === 'none' || s === 'max' ? s : ints(s.replaceAll('+', ','), 'preferred', 1)!);
  const budget = f.budgetMs.trim() === '' ? undefined : Number(f.budgetMs);
  if (budget !== undefined && !(budget > 0)) throw new Error(`latency budget: '${f.budgetMs}' is not a number of ms > 0`);
  return {
    model, version, instances: ints(f.instances, 'instances', 1), max_batch: ints(f.maxBatch, 'max_batch', 1), delay_us: delay,
    preferred: preferred.length ? preferred : undefined, concurrency: f.concurrency, latency_budget_ms: budget, measurement_interval_ms: f.intervalMs,
  };
}

/** `i2 b32 d1ms p[8,16]`: a config in a table cell or a chart label. */
export function shortConfig(c: SweepConfig): string {
  const d = c.max_queue_delay_microseconds;
  const delay = d >= 1000 ? `${+(d / 1000).toFixed(2)}ms` : `${d}µs`;
  return `i${c.instances} b${c.max_batch_size} d${delay} p${c.preferred_batch_size.length ? `[${c.preferred_batch_size.join(',')}]` : '-'}`;
}
