/**
 * The model's instances, built from instance_group. Naming follows Triton's `<group>_<index>`; a GPU group's
 * `count` is per listed GPU (as in Triton), spread round-robin over the GPUs. The pool only tracks states and
 * hands out idle instances (least recently used first, so work spreads evenly); starting and stopping
 * instances through the executor is the scheduler's job.
 */
import type { BatchTrigger, InstanceState } from '../events';
import type { InstanceGroupInput } from './config-input';
import type { ResourceNeed } from '../rate-limiter/resources';
import type { AnyEntry } from './queue-entry';
import type { InstanceInfo, SchedulerRequest } from './types';

/** One batch handed to an instance: running, or waiting behind the running one (prefetched). */
export interface InstanceBatch {
  /** set when the batch is formed ('' while it is only lent) */
  batchId: string;
  /** formation order (0 while lent) */
  seq: number;
  readonly size: number;
  readonly entries: readonly AnyEntry[];
  /** what the executor was given (the same array, so an executor can recognise it in `reclaim`) */
  readonly requests: readonly SchedulerRequest<unknown>[];
  /** times handed to an executor (a reclaimed batch is handed again); only the latest hand-off may answer */
  handOffs?: number;
  /** the busy instance it was handed to early (prefetch), while it may still be taken back (batch-runner.ts) */
  holder?: PoolInstance;
  /**
   * Lent, not formed: the queue's head handed to a busy instance while it could still grow (lent-batch.ts).
   * Its entries are still queued; this is the decision it was lent on.
   */
  lent?: { trigger: BatchTrigger; oldestUs: number };
  /** when the instance began it (clock µs); meaningful once `started` */
  startedUs: number;
  started: boolean;
}

export interface PoolInstance {
  readonly info: InstanceInfo;
  state: InstanceState;
  /** batch running on it while busy */
  batchId?: string;
  /** when its running batch began (clock µs): the instance busy longest is the likeliest to free up first */
  sinceUs: number;
  /** batches already handed to the executor that start when the running one ends, oldest first */
  readonly prefetched: InstanceBatch[];
  reason?: string;
  /** a count decrease picked it: stop after its current batch */
  retiring: boolean;
}

export interface GroupSpec {
  name: string;
  kind: string;
  /** per device for GPU groups */
  count: number;
  gpus: number[];
  /** what each instance asks of the rate limiter (instance_group.rate_limiter) */
  rateLimiter?: { resources: ResourceNeed[]; priority: number };
}

export function groupsFromConfig(model: string, groups: readonly InstanceGroupInput[] | undefined): GroupSpec[] {
  const list = groups && groups.length > 0 ? groups : [{}];
  return list.map((g, i) => {
    const count = g.count ?? 1;
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`instance_group[${i}].count must be a non-negative integer`);
    const kind = g.kind ?? (g.gpus && g.gpus.length > 0 ? 'KIND_GPU' : 'KIND_CPU');
    const rl = g.rate_limiter;
    const rateLimiter = rl ? { priority: rl.priority ?? 0, resources: (rl.resources ?? []).map((r) => ({ name: r.name ?? '', global: r.global ?? false, count: r.count ?? 0 })) } : undefined;
    return { name: g.name || `${model}_${i}`, kind, count, gpus: [...(g.gpus ?? [])], ...(rateLimiter ? { rateLimiter } : {}) };
  });
}

export function deviceFor(group: GroupSpec, index: number): string {
  if (group.kind !== 'KIND_GPU') return 'cpu';
  const gpus = group.gpus.length > 0 ? group.gpus : [0];
  return `gpu${gpus[index % gpus.length]}`;
}

/** total instances a group runs: count per device for GPU groups */
export function instancesInGroup(group: GroupSpec): number {
  return group.kind === 'KIND_GPU' ? group.count * Math.max(1, group.gpus.length) : group.count;
}

export class InstancePool {
  readonly instances: PoolInstance[] = [];
  private idle: PoolInstance[] = [];
  private idleHead = 0;

  get idleCount(): number {
    return this.idle.length - this.idleHead;
  }

  /** create an instance record in state 'loading'; index = smallest free index in its group */
  create(group: GroupSpec): PoolInstance {
    const used = new Set(this.instances.filter((p) => p.info.group === group.name).map((p) => p.info.index));
    let index = 0;
    while (used.has(index)) index++;
    const inst: PoolInstance = {
      info: { name: `${group.name}_${index}`, group: group.name, kind: group.kind, device: deviceFor(group, index), index },
      state: 'loading',
      sinceUs: 0,
      prefetched: [],
      retiring: false,
    };
    this.instances.push(inst);
    return inst;
  }

  markIdle(inst: PoolInstance): void {
    inst.state = 'idle';
    inst.batchId = undefined;
    this.idle.push(inst);
  }

  /** least recently used idle instance, or undefined */
  takeIdle(): PoolInstance | undefined {
    while (this.idleHead < this.idle.length) {
      const inst = this.idle[this.idleHead++];
      if (this.idleHead > 64 && this.idleHead * 2 > this.idle.length) {
        this.idle = this.idle.slice(this.idleHead);
        this.idleHead = 0;
      }
      if (inst.state === 'idle') return inst;
    }
    return undefined;
  }

  /** take a specific instance out of the idle list (it is being retired) */
  removeFromIdle(inst: PoolInstance): void {
    const i = this.idle.indexOf(inst, this.idleHead);
    if (i >= 0) this.idle.splice(i, 1);
  }

  /**
   * The busy instance to hand a batch to early (`depth` = batches it may hold besides the running one):
   * of those with room, the one whose running batch began first, as the likeliest to free up first;
   * undefined when none has room.
   */
  holderFor(depth: number): PoolInstance | undefined {
    if (depth <= 0) return undefined;
    let best: PoolInstance | undefined;
    for (const p of this.instances) {
      if (p.state !== 'busy' || p.retiring || p.prefetched.length >= depth) continue;
      if (!best || p.sinceUs < best.sinceUs) best = p;
    }
    return best;
  }

  forget(inst: PoolInstance): void {
    const i = this.instances.indexOf(inst);
    if (i >= 0) this.instances.splice(i, 1);
  }

  /** live (not retiring/stopped/failed) instances of a group, highest index first */
  activeInGroup(group: string): PoolInstance[] {
    return this.instances
      .filter((p) => p.info.group === group && !p.retiring && p.state !== 'stopped' && p.state !== 'failed')
      .sort((a, b) => b.info.index - a.info.index);
  }

  get busyCount(): number {
    let n = 0;
    for (const p of this.instances) if (p.state === 'busy' || (p.state === 'draining' && p.batchId)) n++;
    return n;
  }

  /** instances that can take work now or soon */
  get usableCount(): number {
    let n = 0;
    for (const p of this.instances) if (!p.retiring && (p.state === 'idle' || p.state === 'busy' || p.state === 'loading')) n++;
    return n;
  }
}
