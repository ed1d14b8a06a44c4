/**
 * Between a formed batch and its instance: the server's rate limiter (packages/core/src/rate-limiter), when
 * one is given. A batch formed for a free instance begins only once that instance holds the resources its
 * instance_group's rate_limiter asks for; meanwhile the instance is busy (it holds the batch, so no other
 * is formed for it) and the batch no longer grows, as Triton's payload waits in its rate limiter.
 *
 * The gate registers each instance with the limiter as it starts (a need the server cannot meet fails the
 * start with Triton's words) and forgets it when it stops, so live instance changes keep the counts right.
 * When a batch ends the instance's resources are released and the model's next batch is formed inside one
 * `hold`, so that batch competes with its new execution count before anything freed is handed on.
 */
import type { RateLimiter } from '../rate-limiter/rate-limiter';
import type { GroupSpec, PoolInstance } from './instance-pool';
import { instancesInGroup } from './instance-pool';

/** Triton keys per-device resources by the instance's device id; a CPU instance's id is 0. */
export function deviceNumber(device: string): number {
  const gpu = /^gpu(\d+)$/.exec(device);
  return gpu ? Number(gpu[1]) : 0;
}

export class ResourceGate {
  private readonly waiting = new Set<PoolInstance>();
  /** the limiter when it checks resources; with --rate-limit off every batch begins at once, as without one */
  private readonly limiter: RateLimiter | undefined;

  constructor(
    limiter: RateLimiter | undefined,
    private readonly model: string,
    private readonly idPrefix: string,
  ) {
    this.limiter = limiter && limiter.mode !== 'off' ? limiter : undefined;
  }

  /** batches wait for resources: prefetch (a batch begun without asking) is off then */
  get limiting(): boolean {
    return this.limiter !== undefined;
  }

  /**
   * Refuses, before any instance starts, a model whose instances the server's resources can never run
   * (Triton fails such a load with the resource manager's words): the counts with every planned instance.
   */
  check(groups: readonly GroupSpec[], deviceOf: (g: GroupSpec, index: number) => string): void {
    this.limiter?.check(groups.flatMap((g) => Array.from({ length: instancesInGroup(g) }, (_, i) => ({
      id: `${this.idPrefix}${g.name}_${i}`, model: this.model, device: deviceNumber(deviceOf(g, i)), resources: g.rateLimiter?.resources,
    }))));
  }

  register(inst: PoolInstance, g: GroupSpec): void {
    this.limiter?.addInstance({
      id: this.idOf(inst), model: this.model, device: deviceNumber(inst.info.device),
      priority: g.rateLimiter?.priority, resources: g.rateLimiter?.resources,
    });
  }

  forget(inst: PoolInstance): void {
    this.waiting.delete(inst);
    this.limiter?.removeInstance(this.idOf(inst));
  }

  /** `begin` runs once `inst` holds its resources: now, or when the limiter grants them */
  run(inst: PoolInstance, begin: () => void): void {
    if (!this.limiter) return begin();
    if (this.limiter.acquire(this.idOf(inst), () => {
      this.waiting.delete(inst);
      begin();
    })) begin();
    else this.waiting.add(inst);
  }

  /** the batch on `inst` ended: its resources go back while `next` (idle + the next formation) runs */
  ended(inst: PoolInstance, next: () => void): void {
    const limiter = this.limiter;
    if (!limiter) return next();
    limiter.hold(() => {
      limiter.release(this.idOf(inst));
      next();
    });
  }

  /** holds a formed batch while it waits for resources (drawn waiting, not running) */
  isWaiting(inst: PoolInstance): boolean {
    return this.waiting.has(inst);
  }

  private idOf(inst: PoolInstance): string {
    return `${this.idPrefix}${inst.info.name}`;
  }
}
