/**
 * The contract between the per-model scheduler (packages/core/src/scheduler) and whoever feeds it
 * (the server's KServe handler, the simulator, tests) and whoever executes its batches (the server's
 * backends, the simulator's cost model).
 *
 * The scheduler never looks inside a payload: it only needs each request's sample count, its shape key
 * and its priority/timeout. That keeps the scheduler pure and lets the simulator reuse it unchanged.
 */
import type { RejectReason } from '../events';
import type { ErrorCode } from '../errors/codes';
import { InferError, type TransportStatus } from '../errors/infer-error';
import type { SequenceFields, SequenceStep } from './sequence/types';

export interface SchedulerRequest<P = unknown> {
  /** assigned by the scheduler when absent; unique per scheduler */
  id?: string;
  /** samples carried (the request's batch dimension); 1 for models with max_batch_size 0 */
  batchSize: number;
  /** key of the non-batch dims; requests with different keys never share a batch ('' = fixed shapes) */
  shapeKey: string;
  /** 1 is the highest level; undefined/0 = the config's default_priority_level */
  priority?: number;
  /** per-request timeout override in microseconds (only honoured as Triton does: allow_timeout_override) */
  timeoutUs?: number;
  payload: P;
  /** a stateful model's request: its correlation id and START/END flags (the sequence batcher reads them) */
  sequence?: SequenceFields;
  /** set by the sequence batcher on each request it hands the executor: slot, control values, state */
  step?: SequenceStep;
}

/** What an executor knows about the instance running a batch. */
export interface InstanceInfo {
  /** Triton-style name `<group>_<index>`, stable while the instance lives */
  name: string;
  group: string;
  kind: string; // KIND_CPU | KIND_GPU | KIND_MODEL | KIND_AUTO resolved
  /** 'cpu' or 'gpu<N>' */
  device: string;
  /** position in its group */
  index: number;
}

/**
 * A program an instance runs in its own thread beside its model (a generative model's step loop, so its
 * steps follow one another without a hand-off to the scheduler's thread). `module` is the program's module
 * URL and `init` the plain data it starts with; what it posts back comes to `message`, in order, and
 * `ended` is called once if the instance's thread dies under it (not when the instance is stopped).
 */
export interface HostedProgram {
  module: string;
  init: unknown;
  message(body: unknown): void;
  ended(error: Error): void;
}

/** The scheduler's side of a hosted program: messages to it, delivered in order. */
export interface ProgramLink {
  post(body: unknown): void;
}

export interface Executor<P = unknown, R = unknown> {
  /**
   * Batches an instance may be handed while it still runs one (default 0), to hide the hand-off: an
   * executor whose instances run their batches one at a time, in the order given, can set 1 (with
   * `reclaim`), and an instance then begins the batch it holds the moment the running one ends, without a
   * round trip to the scheduler. The dispatch rule stays the scheduler's and Triton's (payloads.ts): every
   * free instance takes the oldest queued batch, so only the oldest is ever handed early, and it is taken
   * back when it grows or another instance frees up first. Without `reclaim` nothing is handed early.
   */
  readonly prefetch?: number;
  /**
   * With `prefetch`: take back a batch handed to `instance` behind its running one (`batch` is the very
   * array it was given), if it has not begun. True: it never will begin there and its `done` is never
   * called; the scheduler gives it to the instance that is free. False: it has begun, or will begin there
   * before anything else, and is answered as usual. Must decide synchronously and race-free (onnxruntime:
   * a compare-and-swap on a word the worker shares; stub processes: the batch waits on the server's side
   * until the stub answers the one before).
   */
  reclaim?(instance: InstanceInfo, batch: readonly SchedulerRequest<P>[]): boolean;
  /**
   * Runs `program` in the started instance's own thread; rejects when this instance cannot (the caller
   * then runs the work in its own thread). Only executors whose instances own a thread offer it.
   */
  hostProgram?(instance: InstanceInfo, program: HostedProgram): Promise<ProgramLink>;
  /** Bring an instance up (load a session, start a worker). Rejecting marks the instance failed. */
  startInstance?(instance: InstanceInfo): Promise<void>;
  /** Tear an instance down after it has finished its current batch. */
  stopInstance?(instance: InstanceInfo): Promise<void>;
  /**
   * Run one batch on one instance. Resolve with one result per request, in the order given; a result
   * that is a RequestFailure fails only its own request (an executor that isolated a bad request).
   * Rejecting fails every request of the batch (each gets its own error answer).
   */
  execute(instance: InstanceInfo, batch: readonly SchedulerRequest<P>[]): Promise<R[]>;
  /**
   * Optional callback form of `execute`, preferred by the scheduler when present. The simulator uses it so a
   * batch completes synchronously inside a VirtualClock timer (a promise would settle only after the clock
   * moved on). Call `done` exactly once: (null, results) or (error).
   */
  executeWithCallback?(
    instance: InstanceInfo,
    batch: readonly SchedulerRequest<P>[],
    done: (error: unknown, results?: R[], phases?: ComputePhases) => void,
  ): void;
}

/**
 * What an executor measured inside a batch's compute span, in µs (Triton's compute_input and
 * compute_output): building the framework's input tensors from the requests, and splitting its outputs
 * back per request. The scheduler reports the rest of the span as the framework's run (compute_infer).
 */
export interface ComputePhases {
  inputUs: number;
  outputUs: number;
}

/**
 * An executor's result for one request of a batch that failed for that request alone (the others have
 * results). Its message must be about this request only: it is what this request's client sees.
 */
export class RequestFailure extends InferError {
  constructor(message: string, code: ErrorCode = 'INTERNAL') {
    super(code, message);
    this.name = 'RequestFailure';
  }
}

/** Every refusal or failure a request can get from the scheduler: the reason its events name, and Triton's code. */
export class SchedulerError extends InferError {
  constructor(
    readonly reason: RejectReason,
    message: string,
    code: ErrorCode,
    transportStatus?: TransportStatus,
  ) {
    super(code, message, transportStatus);
    this.name = 'SchedulerError';
  }

  /** the refusal `error` (a builder's InferError), told as the scheduler's `reason` */
  static of(reason: RejectReason, error: InferError): SchedulerError {
    return new SchedulerError(reason, error.message, error.code, error.transportStatus);
  }
}
