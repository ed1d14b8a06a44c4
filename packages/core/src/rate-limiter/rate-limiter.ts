/**
 * The rate limiter: a formed batch runs on its instance only once the resources the instance needs are free
 * (Triton's rate_limiter.cc, `--rate-limit execution_count`). Pure bookkeeping: the scheduler asks
 * `acquire(instance, onGrant)` before it starts a batch and calls `release` when the batch ends; no timers.
 *
 * Order: the instances waiting for resources are ranked by executions x priority (a priority of 0 counts as
 * 1), lowest first, ties in the order they began to wait. Only the first may take resources: when it does
 * not fit, the ones behind it wait too, so a large need is not starved by a stream of small ones (Triton's
 * staging queue). One difference: Triton allocates at most one instance per event; here every instance that
 * fits at the head is granted at once, so a resource freed never sits idle while a granted-later batch waits.
 *
 * An instance with more work re-enters the queue as part of `release` (with its new execution count) before
 * the freed resources are handed on, as Triton re-stages a released instance whose model has requests
 * pending; otherwise a finished instance would always yield its turn and priorities would mean nothing.
 *
 * Mode 'off' grants every request at once and checks no resources (Triton ignores the config then).
 */
import { InferError } from '../errors';
import { MinHeap } from '../util/min-heap';
import type { ExplicitResource, RateLimitMode } from './flags';
import { GLOBAL, ResourceLedger, resourceCounts, scopedNeeds, type ResourceCounts, type ResourceNeed, type Scope } from './resources';

export interface LimitedInstance {
  /** unique across the server (model and instance name) */
  id: string;
  model: string;
  /** the device whose per-device resources it uses */
  device: number;
  /** Triton's rate_limiter.priority (0 or absent = 1) */
  priority?: number;
  resources?: readonly ResourceNeed[];
}

export type LimitedState = 'idle' | 'waiting' | 'running';

interface Tracked {
  /** replaced (never mutated) by a live priority change */
  spec: LimitedInstance;
  readonly scoped: { scope: Scope; name: string; count: number }[];
  state: LimitedState;
  executions: number;
  /** when it began to wait (for ties) */
  seq: number;
  onGrant?: () => void;
}

export interface RateLimiterSnapshot {
  mode: RateLimitMode;
  resources: { scope: Scope; name: string; count: number; held: number; holders: string[]; waiting: string[] }[];
  instances: { id: string; model: string; device: number; priority: number; executions: number; state: LimitedState }[];
  /** waiting instances in the order they will be served */
  queue: string[];
}

const weightOf = (t: Tracked) => t.executions * Math.max(1, t.spec.priority ?? 1);

export class RateLimiter {
  private readonly instances = new Map<string, Tracked>();
  private readonly ledger = new ResourceLedger();
  private counts: ResourceCounts = new Map();
  private seq = 0;
  /** > 0 inside `hold`: nothing is granted until the outermost hold ends */
  private holding = 0;
  private readonly queue = new MinHeap<Tracked>((a, b) => weightOf(a) < weightOf(b) || (weightOf(a) === weightOf(b) && a.seq < b.seq));

  constructor(readonly mode: RateLimitMode, private explicit: readonly ExplicitResource[] = []) {}

  /**
   * Sets how many of a resource exist, live, as `--rate-limit-resource name:count[:device]` would at start
   * (device null: the global pool, or every device's copy). A count below an instance's need is refused
   * with Triton's load error and changes nothing; a larger one grants the waiters it now fits. The first
   * live count pins every other resource at the count it has now: once any is named, one not named would
   * have none (resources.ts).
   */
  setResourceCount(name: string, device: number | null, count: number): void {
    if (this.mode === 'off') throw new InferError('UNAVAILABLE', 'the rate limiter is off: start the server with --rate-limit execution_count to change resource counts');
    const known = [...this.counts.values()].filter((r) => r.name === name && (device === null || r.scope === GLOBAL || r.scope === device));
    if (known.length === 0) throw new InferError('NOT_FOUND', `no loaded instance needs a resource "${name}"${device === null ? '' : ` on device ${device}`}: its count would change nothing`);
    const pinned: ExplicitResource[] = this.explicit.length > 0
      ? [...this.explicit]
      : [...this.counts.values()].map((r) => ({ name: r.name, count: r.count, device: r.scope === GLOBAL ? null : r.scope }));
    // a count for every device (null) replaces that resource's per-device counts; one device's, only its own
    const next = [...pinned.filter((e) => e.name !== name || (device !== null && e.device !== device)), { name, count, device }];
    this.counts = resourceCounts(this.instances.values(), next); // throws Triton's words, before anything changes
    this.explicit = next;
    this.grantWhatFits();
  }

  /** Sets the priority (weight) of every instance of `model`, live; how many it changed. Waiters are re-ranked. */
  setModelPriority(model: string, priority: number): number {
    if (this.mode === 'off') throw new InferError('UNAVAILABLE', 'the rate limiter is off: start the server with --rate-limit execution_count to change priorities');
    const mine = [...this.instances.values()].filter((t) => t.spec.model === model);
    if (mine.length === 0) throw new InferError('NOT_FOUND', `model '${model}' has no instance the rate limiter knows (is it loaded?)`);
    for (const t of mine) t.spec = { ...t.spec, priority };
    // the heap ordered the waiters by their old weights: build it again
    const waiting = [...this.queue.values()];
    this.queue.retain(() => false);
    for (const t of waiting) this.queue.push(t);
    this.grantWhatFits();
    return mine.length;
  }

  /** Registers an instance; a need the server cannot meet throws Triton's load error and changes nothing. */
  addInstance(spec: LimitedInstance): void {
    if (this.instances.has(spec.id)) throw new InferError('INTERNAL', `instance ${spec.id} is already registered with the rate limiter`);
    const tracked: Tracked = { spec, scoped: scopedNeeds(spec.resources ?? [], spec.device), state: 'idle', executions: 0, seq: 0 };
    if (this.mode !== 'off') this.counts = resourceCounts([...this.instances.values(), tracked], this.explicit);
    this.instances.set(spec.id, tracked);
  }

  /** Throws the load error `addInstance` would for these instances (a model's, before any starts); changes nothing. */
  check(specs: readonly LimitedInstance[]): void {
    if (this.mode === 'off') return;
    const planned = specs.map((spec) => ({ scoped: scopedNeeds(spec.resources ?? [], spec.device) }));
    resourceCounts([...this.instances.values(), ...planned], this.explicit);
  }

  /**
   * Forgets an instance (unload, or a live count decrease once it has drained). A waiting one stops waiting
   * (its onGrant is never called); a running one gives back what it held. Counts are derived again, so a
   * default count falls when the instance that needed the most leaves.
   */
  removeInstance(id: string): void {
    const t = this.instances.get(id);
    if (!t) return;
    this.instances.delete(id);
    if (t.state === 'waiting') this.queue.retain((q) => q !== t);
    if (t.state === 'running') this.ledger.give(t.scoped);
    if (this.mode !== 'off') this.counts = resourceCounts(this.instances.values(), this.explicit);
    this.grantWhatFits();
  }

  /**
   * May this instance run a batch now? true: it holds its resources (call release when the batch ends).
   * false: it waits, and `onGrant` is called (once) when it holds them, unless withdrawn first.
   */
  acquire(id: string, onGrant: () => void): boolean {
    const t = this.tracked(id);
    if (t.state !== 'idle') throw new InferError('INTERNAL', `instance ${id} asked the rate limiter for resources while ${t.state}`);
    if (this.mode === 'off') {
      t.state = 'running';
      return true;
    }
    this.enqueue(t, onGrant);
    const granted = this.grantWhatFits(t);
    return granted;
  }

  /** A waiting instance stops waiting (its batch was taken back); true when it was waiting. */
  withdraw(id: string): boolean {
    const t = this.instances.get(id);
    if (!t || t.state !== 'waiting') return false;
    this.queue.retain((q) => q !== t);
    t.state = 'idle';
    t.onGrant = undefined;
    this.grantWhatFits();
    return true;
  }

  /**
   * The instance's batch ended: it counts one more execution and gives its resources back. With `next`, it
   * has another batch and waits again, ranked with its new count, before anything freed is handed on; the
   * result is then whether it may start that batch at once (else `next` is called when it may).
   */
  release(id: string, next?: () => void): boolean {
    const t = this.tracked(id);
    if (t.state !== 'running') throw new InferError('INTERNAL', `instance ${id} released the rate limiter's resources while ${t.state}`);
    t.executions++;
    t.state = 'idle';
    if (this.mode === 'off') {
      if (!next) return false;
      t.state = 'running';
      return true;
    }
    this.ledger.give(t.scoped);
    if (next) this.enqueue(t, next);
    return this.grantWhatFits(next ? t : undefined);
  }

  /**
   * Runs `fn` with grants held back, then grants what fits. A scheduler releases an instance and forms its
   * model's next batch inside one hold, so that batch waits ranked by its new execution count before the
   * freed resources go to anyone (Triton re-stages a released instance before it allocates).
   */
  hold(fn: () => void): void {
    this.holding++;
    try {
      fn();
    } finally {
      this.holding--;
    }
    if (this.holding === 0 && this.mode !== 'off') this.grantWhatFits();
  }

  snapshot(): RateLimiterSnapshot {
    const all = [...this.instances.values()];
    const queue = [...this.queue.values()].sort((a, b) => weightOf(a) - weightOf(b) || a.seq - b.seq);
    const needing = (list: Tracked[], scope: Scope, name: string) =>
      list.filter((t) => t.scoped.some((n) => n.scope === scope && n.name === name)).map((t) => t.spec.id);
    return {
      mode: this.mode,
      resources: [...this.counts.values()].map((r) => ({
        ...r,
        held: this.ledger.heldOf(r.scope, r.name),
        holders: needing(all.filter((t) => t.state === 'running'), r.scope, r.name),
        waiting: needing(queue, r.scope, r.name),
      })),
      instances: all.map((t) => ({
        id: t.spec.id, model: t.spec.model, device: t.spec.device, priority: Math.max(1, t.spec.priority ?? 1), executions: t.executions, state: t.state,
      })),
      queue: queue.map((t) => t.spec.id),
    };
  }

  private tracked(id: string): Tracked {
    const t = this.instances.get(id);
    if (!t) throw new InferError('INTERNAL', `instance ${id} is not registered with the rate limiter`);
    return t;
  }

  private enqueue(t: Tracked, onGrant: () => void): void {
    t.state = 'waiting';
    t.seq = this.seq++;
    t.onGrant = onGrant;
    this.queue.push(t);
  }

  /**
   * Grants the head of the queue while it fits. The grant of `asking` is returned instead of called back
   * (its caller is waiting for the answer); the others' callbacks run after the bookkeeping is done, so a
   * callback that releases at once re-enters a consistent state.
   */
  private grantWhatFits(asking?: Tracked): boolean {
    if (this.holding > 0) return false;
    const granted: Tracked[] = [];
    for (let head = this.queue.peek(); head && this.ledger.fits(this.counts, head.scoped); head = this.queue.peek()) {
      this.queue.pop();
      this.ledger.take(head.scoped);
      head.state = 'running';
      granted.push(head);
    }
    let askingGranted = false;
    for (const t of granted) {
      const onGrant = t.onGrant;
      t.onGrant = undefined;
      if (t === asking) askingGranted = true;
      else onGrant?.();
    }
    return askingGranted;
  }
}

