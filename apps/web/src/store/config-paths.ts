/** Helpers that read and patch a model's JSON config by Triton field names (shared by store and controls). */
import { parseLivePath, writeLivePath } from '@inferscope/core/live-config';
import type { ModelLive } from './live-types';

export interface BatchingView {
  maxBatchSize: number;
  dynamic: boolean;
  maxQueueDelayUs: number;
  preferred: number[];
  priorityLevels: number;
  instances: number;
}

/**
 * Apply config.changed entries to a model's JSON config. The paths are the live-config module's
 * (`dynamic_batching.max_queue_delay_microseconds`, `instance_group[0].count`, ...): parsed by its one
 * parser; a path that names nothing live is ignored.
 */
export function applyConfigChanges(config: Record<string, unknown>, changes: { path: string; new: unknown }[]): void {
  for (const c of changes) {
    const path = parseLivePath(c.path);
    if (path !== undefined) writeLivePath(config, path, c.new);
  }
}

export function batchingOf(config: Record<string, unknown>, instanceCount: number): BatchingView {
  const db = config.dynamic_batching as Record<string, unknown> | undefined;
  return {
    maxBatchSize: Number(config.max_batch_size ?? 0),
    dynamic: db !== undefined && db !== null,
    maxQueueDelayUs: Number(db?.max_queue_delay_microseconds ?? 0),
    preferred: Array.isArray(db?.preferred_batch_size) ? (db.preferred_batch_size as unknown[]).map(Number) : [],
    priorityLevels: Number(db?.priority_levels ?? 0),
    instances: instanceCount,
  };
}

/** Instances that take work (draining/stopped/failed ones do not count toward the configured count). */
export function activeInstances(m: ModelLive): number {
  let n = 0;
  for (const i of m.instances.values()) if (i.state !== 'stopped' && i.state !== 'failed' && i.state !== 'draining') n++;
  return n;
}

/** A short label naming the configuration a measurement was taken under, e.g. `d=2ms p=[8] mb=32 ×2`. */
export function configLabel(m: ModelLive): string {
  const b = batchingOf(m.config, activeInstances(m));
  const delay = b.dynamic ? `d=${formatDelay(b.maxQueueDelayUs)}` : 'no batching';
  const pref = b.preferred.length ? ` p=[${b.preferred.join(',')}]` : '';
  return `${delay}${pref} mb=${b.maxBatchSize} ×${b.instances}`;
}

export function formatDelay(us: number): string {
  if (us >= 1000) return `${+(us / 1000).toFixed(2)}ms`;
  return `${us}µs`;
}
