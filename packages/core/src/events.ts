/**
 * THE event vocabulary of InferScope. Every scheduler step, model state change and config change is one
 * of these. The server emits them on its EventBus; metrics, statistics, the live gateway, the recorder,
 * the browser dashboard and the tests all consume this one union.
 *
 * Conventions:
 * - `t` is microseconds on the emitting scheduler's monotonic Clock (virtual in tests and the simulator).
 * - Durations are integers in microseconds and their field names end in `_us`.
 * - Ids are stable across events: a request keeps its `request_id` from `request.queued` to its final
 *   `request.completed` or `request.rejected`; a batch keeps its `batch_id` from formed to completed.
 * - `model` + `version` identify the model version the event belongs to.
 *
 * Triton trace points map onto these: REQUEST_START/QUEUE_START = request.queued, COMPUTE_START =
 * batch.started, COMPUTE_END = batch.completed, REQUEST_END = request.completed / request.rejected.
 */
import type { ErrorCode } from './errors/codes';
import type { AutotuneChangeReason } from './autotune-report';

export type { AutotuneChangeReason, AutotuneLimit, AutotuneOrigin, AutotuneProposal, AutotuneReport, AutotuneStatus } from './autotune-report';

export type ModelState = 'LOADING' | 'READY' | 'UNAVAILABLE' | 'UNLOADING';
export type InstanceState = 'loading' | 'idle' | 'busy' | 'draining' | 'failed' | 'stopped';
/** The front end a request came in on (absent: an in-process source, e.g. the load generator). */
export type RequestProtocol = 'http' | 'grpc';
export type RejectReason = 'queue_full' | 'timeout' | 'invalid' | 'unavailable' | 'failed' | 'cancelled';
/** Why a batch left the queue, following Triton's dynamic batcher. */
export type BatchTrigger =
  | 'preferred' // reached a preferred_batch_size (largest reachable wins)
  | 'max_batch' // the next request would exceed max_batch_size (or the batch is exactly full)
  | 'delay' // the oldest request waited max_queue_delay_microseconds
  | 'immediate' // no dynamic batching, max_batch_size 0, or delay 0: send what is there
  | 'shape' // the next request has different non-batch dims and cannot join
  | 'drain'; // the model is unloading/reconfiguring: flush what is pending

interface Base {
  /** microseconds on the scheduler clock */
  t: number;
  model: string;
  version: string;
}

export interface ModelStateEvent extends Base {
  type: 'model.state';
  state: ModelState;
  reason?: string;
}

export interface InstanceStateEvent extends Base {
  type: 'instance.state';
  /** instance name, Triton style: `<group name>_<index>` e.g. `mlp_classifier_0_1` */
  instance: string;
  kind: string; // KIND_CPU | KIND_GPU | ...
  device: string; // 'cpu' | 'gpu0' ...
  state: InstanceState;
  reason?: string;
}

export interface RequestQueuedEvent extends Base {
  type: 'request.queued';
  request_id: string;
  priority: number;
  /** samples carried by this request (its batch dimension; 1 when max_batch_size is 0) */
  batch_size: number;
  /** requests waiting at this priority level after this one was added */
  queue_depth: number;
  /** key of the non-batch shapes; requests with different keys never share a batch */
  shape_key?: string;
  protocol?: RequestProtocol;
}

export interface RequestRejectedEvent extends Base {
  type: 'request.rejected';
  request_id: string;
  reason: RejectReason;
  message: string;
  priority?: number;
  /** how long it had been queued, for a request refused after it was accepted (timeout, unload, ...) */
  queued_us?: number;
  /** the protocol a refused-before-queueing request came in on (invalid, queue full, unavailable); unset in process */
  protocol?: RequestProtocol;
}

/** A DELAY timeout action moved the request behind fresh requests of its level. */
export interface RequestDelayedEvent extends Base {
  type: 'request.delayed';
  request_id: string;
  priority: number;
}

export interface BatchFormedEvent extends Base {
  type: 'batch.formed';
  batch_id: string;
  request_ids: string[];
  /** total samples in the batch */
  size: number;
  trigger: BatchTrigger;
  /** how long the oldest request in the batch had waited */
  oldest_wait_us: number;
  /**
   * set when the batch was handed, as it was formed, to a BUSY instance to run next (prefetch): that
   * instance. It may still move to an instance that frees up first (batch.started says where it ran).
   * Absent when an idle instance took it (its batch.started follows at once) or it waits unheld.
   */
  next_on?: string;
}

export interface BatchStartedEvent extends Base {
  type: 'batch.started';
  batch_id: string;
  instance: string;
  size: number;
  /** true when the instance had been handed the batch early and began it without a hand-off (prefetch) */
  prefetched?: true;
}

export interface BatchCompletedEvent extends Base {
  type: 'batch.completed';
  batch_id: string;
  instance: string;
  size: number;
  compute_us: number;
  /**
   * Parts of compute_us the executor measured (Triton's compute_input / compute_output): preparing the
   * framework's input tensors, and taking its outputs back apart per request. The rest of compute_us is
   * the framework's run (compute_infer). Absent when the executor does not measure them.
   */
  compute_input_us?: number;
  compute_output_us?: number;
  ok: boolean;
  error?: string;
}

export interface RequestCompletedEvent extends Base {
  type: 'request.completed';
  request_id: string;
  batch_id: string;
  priority: number;
  batch_size: number;
  queue_us: number;
  compute_us: number;
  /** its batch's compute_input_us / compute_output_us (each request of a batch shares them, as in Triton) */
  compute_input_us?: number;
  compute_output_us?: number;
  total_us: number;
  ok: boolean;
  error?: string;
  /** Triton's code of the failure (set when !ok): CANCELLED is a cancelled request, not a backend failure */
  code?: ErrorCode;
  /**
   * set on an ensemble's own request: how many composing (step) requests it sent. Its compute_us is
   * then the sum of theirs; statistics count it as one execution of its batch size, as Triton does.
   */
  steps?: number;
}

/**
 * The response cache's part in a request (packages/core/src/response-cache). A hit is answered before any
 * queue: it has no request.queued or request.completed, and this event is its whole story (Triton counts
 * it as a success, with its queue time, but no inference, execution or compute). A miss ran as usual and
 * this event follows when its response was stored; an identical request in flight that stored first makes
 * the second neither a hit nor a miss, as in Triton.
 */
export interface RequestCacheEvent extends Base {
  type: 'request.cache';
  request_id: string;
  outcome: 'hit' | 'miss';
  /** a hit: the lookup; a miss: the lookup plus the insert (Triton's cache_hit / cache_miss durations) */
  cache_us: number;
  /** a hit: the whole request (Triton's success duration) and its queue share (up to the lookup) */
  total_us: number;
  queue_us: number;
  batch_size: number;
}

/** How one response of a request that answers many times ended (Triton's response statistics). */
export type ResponseOutcome = 'success' | 'fail' | 'empty' | 'cancel';

/**
 * One response of a request that answers many times (a decoupled model: 0..n responses, the last one
 * flagged final), as it leaves the model. Its request.completed came when the model's execute() returned
 * (the instance was free again then, as in Triton); responses may follow it. Timing as Triton's
 * response statistics: from the previous response (the first: from the start of the request's batch)
 * to this one (`infer_us`), then reading its outputs (`output_us`).
 */
export interface RequestResponseEvent extends Base {
  type: 'request.response';
  request_id: string;
  /** 0 for the request's first response, then 1, 2, ... (Triton's response_stats key) */
  index: number;
  final: boolean;
  outcome: ResponseOutcome;
  infer_us: number;
  output_us: number;
  error?: string;
}

/** The ensemble request a step request belongs to. */
export interface EnsembleParent {
  model: string;
  version: string;
  request_id: string;
}

/**
 * An ensemble sent one of its steps: `model`/`version`/`request_id` name the step's request as its
 * model's scheduler queues it (its request.queued follows at once), `parent` the ensemble request. One
 * per step request; the dashboard draws ensemble -> step -> composing model from it.
 */
export interface EnsembleStepEvent extends Base {
  type: 'ensemble.step';
  request_id: string;
  /** index in the ensemble's ensemble_scheduling.step; -1 for a BLS call */
  step: number;
  parent: EnsembleParent;
  /** 'bls': the child request of a python model's BLS call (its parent is the request that model was handling) */
  via?: 'bls';
}

/** a correlation id for JSON: its text and its type (42 and "42" are different sequences) */
export interface CorrelationIdView {
  id: string;
  type: 'UINT64' | 'STRING';
}

export interface SequenceSlotView {
  slot: number;
  /** the sequence holding the slot, null when free */
  sequence: CorrelationIdView | null;
}

/**
 * What the dashboard draws of a sequence batcher (scheduler/sequence/view.ts builds it): each instance's
 * slots with the id holding each, the backlog of ids waiting for a slot, the implicit state live sequences
 * hold. Declared here, with the event that carries it, because the scheduler depends on events.
 */
export interface SequenceView {
  strategy: 'direct' | 'oldest';
  /** per instance, in start order */
  instances: { instance: string; slots: SequenceSlotView[] }[];
  /** sequences waiting for a slot, oldest first, with their queued requests (the first SEQUENCE_VIEW_BACKLOG_MAX) */
  backlog: { sequence: CorrelationIdView; requests: number }[];
  /** how many sequences wait in all (a flood of STARTs is counted, not listed) */
  backlog_total: number;
  /** live sequences' implicit state: how many hold some, and its bytes */
  state_memory: { sequences: number; bytes: number };
}

/**
 * A sequence batcher's slots changed: a sequence took or left a slot, the backlog changed, or the implicit
 * state live sequences hold. Sent only when the view differs from the last one sent.
 */
export interface SequenceSlotsEvent extends Base {
  type: 'sequence.slots';
  view: SequenceView;
}

export interface MemoryEntry {
  model: string;
  version: string;
  instance: string;
  bytes: number;
  /** measured: from the driver or resident-memory growth; modelled: weights + workspace + activations */
  source: 'measured' | 'modelled';
}

/**
 * One event of an iterative (continuous-batching) model's step loop as core's iterative/ emits it: steps,
 * joins, tokens, preemptions and KV block use, for the token timeline and the KV block map. The same run
 * is also reported as request and batch events (a step is an execution), which the statistics count.
 */
export interface IterativeEvent extends Base {
  type: 'iterative';
  /** an `IterEvent` of core's iterative/ (typed structurally here: the events area imports no other area) */
  event: { type: string; t: number };
}

export interface MemoryEvent {
  type: 'memory';
  t: number;
  device: string;
  used_bytes: number;
  /** 0 = no budget */
  budget_bytes: number;
  entries: MemoryEntry[];
}

export interface ConfigChange {
  /** dotted path into ModelConfig, e.g. `dynamic_batching.max_queue_delay_microseconds` */
  path: string;
  old: unknown;
  new: unknown;
}

export interface ConfigChangedEvent extends Base {
  type: 'config.changed';
  changes: ConfigChange[];
  /** who made the change: 'dashboard:<socket id>', 'cli', 'file', 'api', 'autotune' */
  by: string;
  /**
   * why, when the autotuner made it (by 'autotune'): the measured p99, rate and batch it saw and what it
   * predicts. One home for the decision: a tuner's change is a config change like a manual one.
   */
  reason?: AutotuneChangeReason;
}

export type SchedulerEvent =
  | ModelStateEvent
  | InstanceStateEvent
  | RequestQueuedEvent
  | RequestRejectedEvent
  | RequestDelayedEvent
  | BatchFormedEvent
  | BatchStartedEvent
  | BatchCompletedEvent
  | RequestCompletedEvent
  | RequestResponseEvent
  | RequestCacheEvent
  | EnsembleStepEvent
  | IterativeEvent
  | SequenceSlotsEvent
  | MemoryEvent
  | ConfigChangedEvent;

export type SchedulerEventType = SchedulerEvent['type'];

export type EventListener = (event: SchedulerEvent) => void;

/**
 * A tiny synchronous event bus. Listeners run inline (the scheduler's hot path), so they must be cheap:
 * consumers that do real work (socket emits, file writes) buffer and flush on their own timer.
 */
export class EventBus {
  private listeners: EventListener[] = [];

  on(listener: EventListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(event: SchedulerEvent): void {
    // Copy-on-write array: a listener that unsubscribes during emit does not disturb this loop.
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) {
      try {
        ls[i](event);
      } catch {
        // A broken consumer must never break scheduling. Consumers report their own errors.
      }
    }
  }

  get size(): number {
    return this.listeners.length;
  }
}

/**
 * A completed request's or batch's compute span in Triton's three parts (µs): compute_input and
 * compute_output as the executor measured them (0 when it did not), compute_infer the rest.
 */
export function computeSplit(e: Pick<RequestCompletedEvent, 'compute_us' | 'compute_input_us' | 'compute_output_us'>): { inputUs: number; inferUs: number; outputUs: number } {
  const inputUs = e.compute_input_us ?? 0;
  const outputUs = e.compute_output_us ?? 0;
  return { inputUs, inferUs: Math.max(0, e.compute_us - inputUs - outputUs), outputUs };
}
