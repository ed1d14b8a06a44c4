/**
 * Switching the tuner off puts back what it changed: the delay it found (autotuneStart recorded it) and the
 * instances it added. The untick left [64] and 10 ms live, and a later `perf` at concurrency 1
 * measured 10.8 ms of queue: a tuner the user stopped must not leave its last guess behind. The preferred
 * sizes are put back only when the tuner cleared them (after its proposal, policy.ts): a change the user
 * made to them meanwhile is the user's.
 */
import type { DynamicBatchingPatch } from '../live-config/fields';
import type { AutotuneState, BatchingView } from './policy';
import { restoredText, type AutotuneStatus } from './status';

export interface AutotuneRestore {
  /** the delay to put back; absent when it is already the one found */
  patch?: DynamicBatchingPatch;
  /** instances to take back (the ones the tuner added), 0 for none */
  remove_instances: number;
  status: AutotuneStatus;
}

export function autotuneRestore(state: AutotuneState, view: BatchingView): AutotuneRestore {
  const origin = state.origin;
  const remove = Math.max(0, state.added ?? 0);
  if (!origin) return { remove_instances: remove, status: { state: 'off', target_us: state.target_us } };
  const delayBack = origin.max_queue_delay_microseconds !== view.delay_us;
  const preferredBack = state.cleared_preferred === true && origin.preferred_batch_size.join() !== view.preferred.join();
  if (!delayBack && !preferredBack && remove === 0) return { remove_instances: 0, status: { state: 'off', target_us: state.target_us } };
  const restored = { ...origin, instances_removed: remove };
  const patch: DynamicBatchingPatch = {
    ...(delayBack ? { max_queue_delay_microseconds: origin.max_queue_delay_microseconds } : {}),
    ...(preferredBack ? { preferred_batch_size: [...origin.preferred_batch_size] } : {}),
  };
  return {
    ...(delayBack || preferredBack ? { patch } : {}),
    remove_instances: remove,
    status: { state: 'restored', target_us: state.target_us, restored, text: restoredText(restored) },
  };
}
