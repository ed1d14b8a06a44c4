/**
 * The model's formed batches that no instance has begun, oldest first: Triton's payload queue, one per
 * model. An instance that becomes free takes the head, whichever instance it is, so a batch never starts
 * before an older one. Batches are formed into it while every instance is busy only where Triton
 * prefetches, and only when they could not grow anyway (decide.ts mayFormWhileBusy); Triton's cap is
 * twice the instance count.
 *
 * The head may also have been handed early to a busy instance (its `holder`), so that instance can begin it
 * without a round trip to the scheduler. It stays in this queue until it begins: when another instance frees
 * up first, the scheduler takes it back (Executor.reclaim) and gives it to that one. Only the head is ever
 * handed early: were a younger batch held too, the instance holding it could free up first and begin it
 * before the older one.
 */
import type { InstanceBatch } from './instance-pool';

export class FormedBatches {
  private items: InstanceBatch[] = [];

  get size(): number {
    return this.items.length;
  }

  /** the oldest formed batch not begun */
  head(): InstanceBatch | undefined {
    return this.items[0];
  }

  push(run: InstanceBatch): void {
    this.items.push(run);
  }

  /** take `run` out (it began, or it moved back to a holder that will begin it); false when absent */
  remove(run: InstanceBatch): boolean {
    const i = this.items.indexOf(run);
    if (i < 0) return false;
    this.items.splice(i, 1);
    return true;
  }

  /** whether some batch here has been handed early to a busy instance */
  hasHeld(): boolean {
    for (const run of this.items) if (run.holder) return true;
    return false;
  }

  /** the batches no instance holds, oldest first (what an unload with no instance left must answer) */
  unheld(): InstanceBatch[] {
    return this.items.filter((run) => !run.holder);
  }
}
