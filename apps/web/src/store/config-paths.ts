/** Helpers that read and patch a model's JSON config by Triton field names (shared by store and controls). */
import type { ModelLive } from './live-types';

export interface BatchingView {
  maxBatchSize: number;
  dynamic: boolean;
  maxQueueDelayUs: number;
  preferred: number[];
  priorityLevels: number;
  instances: number;
}

/** Apply config.changed entries (dotted paths such as `dynamic_batching.max_queue_delay_microseconds`). */
export function applyConfigChanges(config: Record<string, unknown>, changes: { path: string; new: unknown }[]): void {
  for (const c of changes) {
    // `instance_group[0].count` -> ['instance_group', '0', 'count']
    const parts = c.path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '');
    let node: Record<string, unknown> = config;
    parts.slice(0, -1).forEach((p, i) => {
      const next = node[p];
      if (next === null || typeof next !== 'object') node[p] = /^\d+$/.test(parts[i + 1]) ? [] : {};
      node = node[p] as Record<string, unknown>;
    });
    node[parts[parts.length - 1]] = c.new;
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
