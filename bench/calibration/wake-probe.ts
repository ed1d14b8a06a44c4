/**
 * The spin wake-up as the server meets it under a given traffic: how much longer than its table time a
 * batch takes when it was sent to an instance that had been idle while the main thread went on turning
 * its loop (a RealClock wait under a millisecond pending right after the post).
 *
 * Why under the traffic and not alone (calibrate's measureSpinWake): the instance's thread sleeps, its
 * vCPU halts, and the post has to get that vCPU woken through the hypervisor while the main thread keeps
 * the other; how often that takes a millisecond or more depends on the pattern of sleeps the traffic
 * makes. Measured on this 2-vCPU VM with the server's own runs (decompose.ts): 10-28% of such batches
 * began over 0.5 ms late at delay 2 ms (the instance sleeping 1-5 ms between batches), 1-3% at delay 0
 * and in the busy cases, none when the main thread went to sleep after the post; an isolated probe
 * reproduced the first figure in one minute and not the next. So the fidelity bench measures it the way
 * it measures the collections (gc-probe.ts): on seconds of the case's own traffic, another seed.
 */
import type { SchedulerEvent } from '@inferscope/core';
import { baseLatencyUs, idlePenaltyUs, quantilesOf, type CostModel, type Quantiles } from '@inferscope/core/sim';
import { SPIN_WAKE_MIN_IDLE_US } from '../sim-host/host-model';
import { installTurningWatch, turning } from './turning';
import type { Span } from './gc-probe';

/** One batch sent to an idle instance, as the main thread saw it. */
export interface WokenBatch {
  size: number;
  /** since the instance's previous batch was answered, µs */
  idleUs: number;
  /** post to answer, µs (the batch's compute_us) */
  computeUs: number;
  /** whether a RealClock wait under a millisecond was pending after the post's turn */
  spinning: boolean;
  /** when it was posted, ms (the event's RealClock time: performance.now(), as the collections' spans) */
  postedMs: number;
}

/** fewer woken batches with the main thread spinning than this, and the probe gives no profile */
export const MIN_WOKEN_BATCHES = 30;

/**
 * Watches `model`'s batches in an event stream (the listener is the caller's to register and remove):
 * `listen` takes every event, `batches()` the woken batches seen so far.
 */
export function wokenBatchWatcher(model: string): { listen: (e: SchedulerEvent) => void; batches: () => WokenBatch[] } {
  installTurningWatch();
  const out: WokenBatch[] = [];
  const lastAnswered = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const open = new Map<string, Omit<WokenBatch, 'computeUs'>>();
  const listen = (e: SchedulerEvent): void => {
    if (!('model' in e) || e.model !== model) return;
    if (e.type === 'batch.started') {
      const behind = inFlight.get(e.instance) ?? 0;
      inFlight.set(e.instance, behind + 1);
      const last = lastAnswered.get(e.instance);
      if (behind > 0 || last === undefined) return; // held behind a running batch, or the instance's first
      const b = { size: e.size, idleUs: e.t - last, spinning: false, postedMs: e.t / 1000 };
      open.set(e.batch_id, b);
      // the load driver arms its next wait after the post, in the same turn: look once that work is done
      setImmediate(() => (b.spinning = turning()));
    } else if (e.type === 'batch.completed') {
      inFlight.set(e.instance, Math.max(0, (inFlight.get(e.instance) ?? 1) - 1));
      lastAnswered.set(e.instance, e.t);
      const b = open.get(e.batch_id);
      open.delete(e.batch_id);
      if (b && e.ok) out.push({ ...b, computeUs: e.compute_us });
    }
  };
  return { listen, batches: () => out };
}

/**
 * The spin wake-up's distribution (CostModel.spin_wake_us): for every batch sent to an instance idle for
 * at least SPIN_WAKE_MIN_IDLE_US with the main thread spinning, its post-to-answer time minus what the
 * cost model gives it without the wake-up (its median and the cost after idle), the simulator's draw for
 * such a batch. Batches a collection of the main thread overlapped are left out: the simulator has the
 * collections apart. Undefined with fewer than MIN_WOKEN_BATCHES batches to go on.
 */
export function spinWakeProfile(batches: readonly WokenBatch[], cost: CostModel, collections: readonly Span[] = []): Quantiles | undefined {
  const overlapped = (b: WokenBatch) => collections.some((g) => g.start < b.postedMs + b.computeUs / 1000 && g.end > b.postedMs);
  const extra = batches
    .filter((b) => b.spinning && b.idleUs >= SPIN_WAKE_MIN_IDLE_US && !overlapped(b))
    .map((b) => b.computeUs - baseLatencyUs(cost, b.size) - idlePenaltyUs(cost, b.idleUs));
  return extra.length >= MIN_WOKEN_BATCHES ? quantilesOf(extra, 0) : undefined;
}
