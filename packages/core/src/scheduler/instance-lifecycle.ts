/**
 * Starting, retiring and stopping instances through the executor, with their instance.state events.
 * Split from ModelScheduler so the scheduler file stays about queues and batches; the scheduler hears
 * back through `hooks` when an instance becomes idle or when the last usable one failed.
 */
import type { Emitter } from './emitter';
import { instancesInGroup, type GroupSpec, type InstancePool, type PoolInstance } from './instance-pool';
import type { Executor } from './types';
import type { ResourceGate } from './resource-gate';

export interface LifecycleHooks {
  /** an instance is idle and can take a batch */
  idle(): void;
  /** an instance failed to start and none is left that could serve */
  noneUsable(): void;
  /** the model has stopped: a late-starting instance must stop right away */
  stopped(): boolean;
}

export class InstanceLifecycle {
  constructor(
    private readonly pool: InstancePool,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    private readonly executor: Executor<any, any>,
    private readonly emit: Emitter,
    private readonly hooks: LifecycleHooks,
    /** the rate limiter's side of instances (resource-gate.ts); none = no limiter */
    private readonly gate?: ResourceGate,
  ) {}

  /** create and start one instance of `g`; false when the executor could not start it */
  async start(g: GroupSpec): Promise<boolean> {
    const inst = this.pool.create(g);
    this.emit.instance(inst, 'loading');
    try {
      this.gate?.register(inst, g); // before the executor: a need the server cannot meet fails it cheaply
      if (this.executor.startInstance) await this.executor.startInstance(inst.info);
    } catch (err) {
      this.gate?.forget(inst);
      inst.reason = err instanceof Error ? err.message : String(err);
      inst.state = 'failed';
      this.emit.instance(inst, 'failed', inst.reason);
      if (this.pool.usableCount === 0) this.hooks.noneUsable();
      return false;
    }
    if (inst.retiring || this.hooks.stopped()) {
      await this.stop(inst);
      return true;
    }
    this.pool.markIdle(inst);
    this.emit.instance(inst, 'idle');
    this.hooks.idle();
    return true;
  }

  /**
   * Start or retire instances of `g` until it runs as many as its count asks (retiring the highest indices
   * first); resolves when the new ones have started.
   */
  async resize(g: GroupSpec): Promise<void> {
    const want = instancesInGroup(g);
    const active = this.pool.activeInGroup(g.name);
    const starts: Promise<boolean>[] = [];
    for (let i = active.length; i < want; i++) starts.push(this.start(g));
    for (const inst of active.slice(0, Math.max(0, active.length - want))) this.retire(inst);
    await Promise.all(starts);
  }

  /** a count decrease picked `inst`: stop it now if idle, after its current batch if busy */
  retire(inst: PoolInstance): void {
    inst.retiring = true;
    if (inst.state === 'idle') {
      this.pool.removeFromIdle(inst);
      void this.stop(inst);
    } else if (inst.state === 'busy') {
      inst.state = 'draining';
      this.emit.instance(inst, 'draining');
    } // 'loading': start() sees `retiring` once the executor is done
  }

  async stop(inst: PoolInstance): Promise<void> {
    if (inst.state === 'stopped') return;
    inst.state = 'draining';
    try {
      if (this.executor.stopInstance) await this.executor.stopInstance(inst.info);
    } catch (err) {
      inst.reason = err instanceof Error ? err.message : String(err);
    }
    inst.state = 'stopped';
    this.gate?.forget(inst);
    this.emit.instance(inst, 'stopped', inst.reason);
    this.pool.forget(inst);
  }
}
