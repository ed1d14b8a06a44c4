/**
 * The one decision every fold of the event stream makes about a request: the dashboard's aggregates
 * (ModelAggregator, and teaching mode's SimStats built on it), the server's statistics extension and
 * /metrics (its StatsCollector), load-run, A/B and autotuner figures (EventFold) and the simulator's
 * summary. Declared here once, following Triton's statistics and metrics:
 *
 * - **A refusal before queueing is not a failure.** Triton's dynamic batcher refuses a request over
 *   `max_queue_size` (and the server one it cannot run: invalid, unavailable) in the enqueue call: the
 *   error goes back to the front end and the request reports no statistics, so neither the statistics
 *   extension's `fail` nor `nv_inference_request_failure` counts it. It is an arrival that was turned
 *   away (`refused`). A request refused after it was queued (a queue timeout, cancelled while queued,
 *   drained by an unload) did reach the model: it is a failure, with nv_inference_request_failure's
 *   reason (live/protocol.ts failureReason). So is a request answered with an error after it ran
 *   (completedFailureReason).
 * - **Pending** (nv_inference_pending_request_count, the dashboard's queue depth) is the requests
 *   queued and not yet taken into a batch: `request.queued` enters; `batch.formed` takes its requests
 *   out, a refusal after queueing its one, and an ensemble's own request (which forms no batch of its
 *   own) leaves when it is answered.
 * - **A response-cache hit** (`request.cache` with outcome 'hit') is a success answered before any queue:
 *   it counts where successes count, with its queue time, and never as an inference, an execution or
 *   compute (Triton's UpdateSuccessCacheHit). A miss is a request that ran and is counted by its own
 *   request.completed; its event only adds the cache's time (cache_miss).
 * - **Which window:** a request counts in the window in which it was answered (or refused), and a batch
 *   in the one in which it completed; rates divide by the time the window observed (Rolling's span, never
 *   more than the time since the first event). Totals run from the start; a caller that wants a stretch
 *   of time (a load run, an A/B round, the autotuner's window) folds that stretch's events into a fresh
 *   EventFold.
 */
import type { RequestCacheEvent, RequestCompletedEvent, RequestRejectedEvent, SchedulerEvent } from '../events';
import { completedFailureReason, failureReason, type FailureReason } from '../live/protocol';

/**
 * What became of one request, disjoint, so sent = success + failed_run + refused_queued + refused:
 * success: answered ok; failed_run: answered with an error after it was queued and batched;
 * refused_queued: refused while it waited in the queue; refused: refused before it was queued.
 */
export type RequestOutcome = 'success' | 'failed_run' | 'refused_queued' | 'refused';

export function requestOutcome(e: RequestCompletedEvent | RequestRejectedEvent): RequestOutcome {
  if (e.type === 'request.completed') return e.ok ? 'success' : 'failed_run';
  return e.queued_us === undefined ? 'refused' : 'refused_queued';
}

/** The failure an answer records, by nv_inference_request_failure's reason; undefined when it is none (a success or a refusal before queueing). */
export function failureOf(e: RequestCompletedEvent | RequestRejectedEvent): FailureReason | undefined {
  switch (requestOutcome(e)) {
    case 'failed_run': return completedFailureReason(e as RequestCompletedEvent);
    case 'refused_queued': return failureReason((e as RequestRejectedEvent).reason);
    default: return undefined;
  }
}

/** A request answered by the response cache (see the file comment): a success with no compute. */
export function isCacheHit(e: SchedulerEvent): e is RequestCacheEvent & { outcome: 'hit' } {
  return e.type === 'request.cache' && e.outcome === 'hit';
}

const NONE: readonly string[] = [];

/** The requests an event takes out of pending (queued, not yet in a batch); `request.queued` is the one way in. */
export function leavesPending(e: SchedulerEvent): readonly string[] {
  switch (e.type) {
    case 'batch.formed': return e.request_ids;
    case 'request.rejected': return e.queued_us === undefined ? NONE : [e.request_id];
    // an ensemble's own request forms no batch: it stops waiting when it is answered
    case 'request.completed': return e.steps !== undefined ? [e.request_id] : NONE;
    default: return NONE;
  }
}

export const noFailures = (): Record<FailureReason, number> => ({ REJECTED: 0, CANCELED: 0, BACKEND: 0, OTHER: 0 });
