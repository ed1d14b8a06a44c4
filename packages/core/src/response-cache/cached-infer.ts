/**
 * The response cache at the door of inference: one request's lookup before any queue, and the store of a
 * miss's response after it ran. What every front end (HTTP, gRPC, an ensemble's step, BLS) calls with the
 * request's payload and the work to run on a miss; the statistics come out as `request.cache` events so the
 * one statistics fold counts them (events.ts says what Triton counts for each).
 *
 * Responses are stored and handed out as copies: a caller that rewrites an answer (classification, a
 * front end's encoding) can never change what the next hit gets.
 */
import type { EventBus } from '../events';
import type { InferPayload, InferResult, Tensor, TensorData } from '../tensor/types';
import { rawTensorBytes } from '../tensor/raw-bytes';
import type { SchedulerRequest } from '../scheduler/types';
import { encodeKey } from './key';
import { countsAsModelMiss, type ResponseCache } from './response-cache';
import { keyHash } from './hash';

export interface CachedRequest {
  model: string;
  /** the version that runs (resolved, never "latest") */
  version: number;
  /** the request as its scheduler would get it (a miss learns its id from the scheduler) */
  request: SchedulerRequest<InferPayload>;
  /** when the request began (clock µs): a hit's total and queue time run from here */
  startUs: number;
}

export function payloadKey(model: string, version: number, payload: InferPayload): Uint8Array {
  return encodeKey({
    model, version,
    inputs: payload.inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape, bytes: rawTensorBytes(t.data) })),
    outputs: payload.outputs ?? [],
  });
}

const copyData = (data: TensorData): TensorData => (Array.isArray(data) ? data.map((b) => b.slice()) : data.slice());
const copyTensor = (t: Tensor): Tensor => ({ name: t.name, datatype: t.datatype, shape: [...t.shape], data: copyData(t.data) });

/** What a stored response costs: its tensors' bytes plus their names, datatypes and dims. */
export function resultBytes(result: InferResult): number {
  return result.reduce((n, t) => n + rawTensorBytes(t.data).length + t.name.length + t.datatype.length + 8 * t.shape.length, 0);
}

export class InferenceCache {
  /** ids for hits of requests that came without one (a scheduler names the others) */
  private hits = 0;

  constructor(
    readonly cache: ResponseCache<InferResult>,
    private readonly now: () => number,
    private readonly bus?: EventBus,
    /** told when a response could not be stored (Triton logs "Failed to insert key ... into response cache") */
    private readonly onInsertFailure?: (message: string) => void,
  ) {}

  /**
   * A hit answers now, from a copy of the stored response; a miss runs `run` (the model's scheduler) and
   * stores what it answered. A failure is passed on and never stored.
   */
  infer(req: CachedRequest, run: () => Promise<InferResult>): Promise<InferResult> {
    const key = payloadKey(req.model, req.version, req.request.payload);
    const lookupStartUs = this.now();
    const found = this.cache.lookup(key);
    if (found.hit) {
      const answer = found.value.map(copyTensor);
      this.emit(req, 'hit', found.us, this.now() - req.startUs, lookupStartUs - req.startUs);
      return Promise.resolve(answer);
    }
    return run().then((result) => {
      const stored = result.map(copyTensor);
      const bytes = resultBytes(stored);
      const { outcome, us } = this.cache.insert(key, { ok: true, value: stored, bytes });
      if (countsAsModelMiss(outcome)) this.emit(req, 'miss', found.us + us, 0, 0);
      if (outcome === 'too_large') {
        this.onInsertFailure?.(`Failed to insert key [${keyHash(key)}] of model '${req.model}' version ${req.version} into response cache: ` +
          `Requested byte_size: ${this.cache.entryBytes(key, bytes)} is greater than total cache size: ${this.cache.capacity}`);
      }
      return result;
    });
  }

  private emit(req: CachedRequest, outcome: 'hit' | 'miss', cacheUs: number, totalUs: number, queueUs: number): void {
    if (!this.bus) return;
    const requestId = req.request.id ?? `${req.model}:${req.version}:hit${++this.hits}`;
    this.bus.emit({
      type: 'request.cache', t: this.now(), model: req.model, version: String(req.version), request_id: requestId,
      outcome, cache_us: Math.round(cacheUs), total_us: Math.max(0, Math.round(totalUs)), queue_us: Math.max(0, Math.round(queueUs)),
      batch_size: req.request.batchSize,
    });
  }
}
