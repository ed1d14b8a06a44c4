/**
 * The batches one stub process has been sent, as far as the server still needs them after the stub
 * answered: a BLS call names the request it was made for by (batch, index), and a decoupled model's
 * responses keep arriving for its requests after execute() returned (from other threads of the model).
 *
 * Each request of a decoupled batch has one state: open until its final response, its failure, its
 * client's cancellation, or `finalTimeoutMs` without a final response (the request then fails and its
 * stream closes, so a model that forgets the final flag cannot hold a client forever). A response for a
 * request no longer open is refused and logged (cancelled ones are dropped quietly: the model may not
 * have seen the cancellation yet).
 */
import { errorCodeOf, InferError } from '@inferscope/core';
import type { SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { StreamingPayload } from '../../kserve/response-stream';
import { readCheckedOutputs } from './outputs';
import type { DecoupledResponse, ToStubCall } from './protocol-calls';

type Batch = readonly SchedulerRequest<StreamingPayload>[];

/** InferScope's own parameters key: seconds a decoupled request may wait for its final response. */
export const FINAL_TIMEOUT_KEY = 'decoupled_final_timeout_seconds';
export const DEFAULT_FINAL_TIMEOUT_S = 600;

interface OpenRequest {
  request: SchedulerRequest<StreamingPayload>;
  state: 'open' | 'final' | 'failed' | 'cancelled';
  timer?: ReturnType<typeof setTimeout>;
}

export interface StubRunsOptions {
  model: string;
  version: string;
  config: ModelConfig;
  decoupled: boolean;
  finalTimeoutMs: number;
  log(msg: string): void;
  /** sends a message to the stub (a cancellation) */
  tell(message: ToStubCall): void;
}

export class StubRuns {
  private readonly batches = new Map<number, Batch>();
  private readonly open = new Map<string, OpenRequest>();
  private readonly batching: boolean;
  private readonly who: string;

  constructor(private readonly o: StubRunsOptions) {
    this.batching = (o.config.max_batch_size ?? 0) > 0;
    this.who = `model.py of decoupled model '${o.model}'`;
  }

  /** A batch was sent as `run`: its requests can now be named by BLS calls and responses. */
  sent(run: number, batch: Batch): void {
    this.batches.set(run, batch);
    if (!this.o.decoupled) return;
    batch.forEach((request, index) => {
      const entry: OpenRequest = { request, state: 'open' };
      this.open.set(`${run}:${index}`, entry);
      const stream = request.payload.stream;
      if (stream) {
        stream.cancel = () => {
          if (entry.state !== 'open') return;
          this.close(run, entry, 'cancelled');
          this.o.tell({ type: 'cancel', run, index });
        };
      }
      entry.timer = setTimeout(() => {
        if (entry.state !== 'open') return;
        const s = this.o.finalTimeoutMs / 1000;
        this.close(run, entry, 'failed');
        this.o.log(`request '${request.id}' of decoupled model '${this.o.model}' got no final response within ${s} s: failed (parameter ${FINAL_TIMEOUT_KEY})`);
        stream?.fail(new Error(`decoupled model '${this.o.model}' sent no final response for request '${request.id}' within ${s} s (parameter ${FINAL_TIMEOUT_KEY})`));
        this.o.tell({ type: 'cancel', run, index });
      }, this.o.finalTimeoutMs);
      entry.timer.unref?.();
    });
  }

  /** The stub answered the batch (`error`: it failed as a whole, and the scheduler says so to each request). */
  /** A batch the scheduler took back before the stub saw it: it runs elsewhere, under another id. */
  withdrawn(run: number): void {
    this.batches.delete(run);
    for (const key of [...this.open.keys()]) if (key.startsWith(`${run}:`)) this.open.delete(key);
  }

  answered(run: number, error: unknown): void {
    const batch = this.batches.get(run);
    if (!this.o.decoupled || !batch) {
      this.batches.delete(run);
      return;
    }
    if (error) {
      batch.forEach((_, index) => {
        const entry = this.open.get(`${run}:${index}`);
        if (entry) this.close(run, entry, 'failed');
      });
    }
    this.forgetIfDone(run);
  }

  /** The request a BLS call was made for. */
  request(run: number | undefined, index: number | undefined): SchedulerRequest<StreamingPayload> | undefined {
    if (run === undefined) return undefined;
    const batch = this.batches.get(run);
    return batch?.[index ?? 0] ?? batch?.[0];
  }

  /** One response of the decoupled model. */
  response(m: DecoupledResponse, body: Uint8Array): void {
    const entry = this.open.get(`${m.run}:${m.index}`);
    if (!entry || entry.state !== 'open') {
      if (entry?.state === 'cancelled') return;
      const id = entry?.request.id ?? this.request(m.run, m.index)?.id;
      this.o.log(`refused a response of decoupled model '${this.o.model}' for request '${id ?? `${m.run}:${m.index}`}': ${entry ? 'the request already has its final response or failed' : 'no such request in flight'}`);
      return;
    }
    const stream = entry.request.payload.stream;
    if (m.error !== undefined) {
      stream?.response(null, m.final, new InferError(errorCodeOf(m.code), m.error));
    } else if (m.outputs && m.outputs.length > 0) {
      let outputs;
      try {
        outputs = readCheckedOutputs(this.o.config, m.outputs, body, this.batching ? entry.request.batchSize : undefined, this.who);
      } catch (err) {
        this.close(m.run, entry, 'failed');
        stream?.fail(err as Error);
        this.o.tell({ type: 'cancel', run: m.run, index: m.index });
        return;
      }
      stream?.response(outputs, m.final);
    } else {
      stream?.response(null, m.final);
    }
    if (m.final) this.close(m.run, entry, 'final');
  }

  /** The stub died: every request still open fails with the cause. */
  failAll(error: Error): void {
    for (const [key, entry] of [...this.open]) {
      const run = Number(key.split(':')[0]);
      if (entry.state !== 'open') continue;
      this.close(run, entry, 'failed');
      entry.request.payload.stream?.fail(error);
    }
    this.batches.clear();
  }

  get inFlight(): number {
    let n = 0;
    for (const e of this.open.values()) if (e.state === 'open') n++;
    return n;
  }

  private close(run: number, entry: OpenRequest, state: OpenRequest['state']): void {
    entry.state = state;
    clearTimeout(entry.timer);
    this.forgetIfDone(run);
  }

  private forgetIfDone(run: number): void {
    const batch = this.batches.get(run);
    if (!batch) return;
    const keys = batch.map((_, i) => `${run}:${i}`);
    if (keys.some((k) => this.open.get(k)?.state === 'open') || this.closedRuns.includes(run)) return;
    // keep the closed entries of the last few batches for late-response diagnostics; drop older ones
    this.closedRuns.push(run);
    while (this.closedRuns.length > 64) {
      const old = this.closedRuns.shift()!;
      const b = this.batches.get(old);
      b?.forEach((_, i) => this.open.delete(`${old}:${i}`));
      this.batches.delete(old);
    }
  }

  private readonly closedRuns: number[] = [];
}
