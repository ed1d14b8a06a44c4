/**
 * The requests one stub process is working on, as far as the server still needs them after it sent the
 * batch: a BLS call names the request it was made for by (batch, index), a decoupled model's responses
 * keep arriving for its requests after execute() returned (from other threads of the model), and a
 * request cancelled while it runs must reach model.py (`request.is_cancelled()`).
 *
 * Each request has one state. A request of an ordinary model is `running` until its batch is answered.
 * A request of a decoupled model is `open` until its final response, its failure, its client's
 * cancellation, or `finalTimeoutMs` without a final response (the request then fails and its stream
 * closes, so a model that forgets the final flag cannot hold a client forever). A response for a request
 * no longer open is refused and logged (cancelled ones are dropped quietly: the model may not have seen
 * the cancellation yet).
 *
 * Each response leaving a decoupled request is a `request.response` event (statistics' response_stats, the
 * trace, the dashboard's stream); so is the end of a request that did not end with its own final
 * response (cancelled: a final `cancel`; timed out or its stub died: a final `fail`), so every stream's
 * events end with a final one.
 *
 * Backpressure: each open request has a SendWindow (send-window.ts): its responses count from their
 * arrival until the front end streaming them says they left the server, the stub is told (`drained`) so
 * the model's sender may send again, and a window that stays full past the stall bound cancels the request.
 *
 * Cancellation: when the request's own signal fires (its client went away, its BLS caller was cancelled
 * or its BLS timeout passed: `payload.cancelled`, set by ModelManager.infer) the stub is told (`cancel`),
 * and the BLS calls the request made that are still out are cancelled too (`childrenOf`). They are also
 * cancelled when the request fails before its end (its batch failed, the stub died or was killed for its
 * execute timeout, a decoupled request timed out); a request that ended normally leaves them be, as in
 * Triton (a model may start a call and not wait for it).
 */
import { errorCodeOf, InferError } from '@inferscope/core';
import type { ResponseOutcome, SchedulerEvent, SchedulerRequest } from '@inferscope/core';
import { FINAL_TIMEOUT_KEY, type ModelConfig } from '@inferscope/core/config';
import { timerDelayMs } from '@inferscope/core/clock';
import type { StreamingPayload } from '../../infer/response-stream';
import { ClientGone, type CancelSignal } from '../../infer/cancellable';
import type { CallChain, ChainLink } from '../../infer/call-chain';
import { readCheckedOutputs } from './outputs';
import type { DecoupledResponse, ToStubCall } from './protocol-calls';
import { SEND_STALL_KEY } from '@inferscope/core/config';
import { AckBatch, SendWindow } from './send-window';

type Batch = readonly SchedulerRequest<StreamingPayload>[];

/** InferScope's own parameters key (core's table): seconds a decoupled request may wait for its final response. */
export { FINAL_TIMEOUT_KEY };
export const DEFAULT_FINAL_TIMEOUT_S = 600;

interface InFlight {
  request: SchedulerRequest<StreamingPayload>;
  state: 'running' | 'open' | 'final' | 'failed' | 'cancelled';
  /** the stub was told the request is cancelled (told once) */
  told?: boolean;
  timer?: ReturnType<typeof setTimeout>;
  /** responses sent so far, and when the last one (or the batch's start) was, µs on the events' clock */
  responses: number;
  lastAt?: number;
  /** a decoupled request's responses not yet gone to its client (the stub's sender waits while it is full) */
  window?: SendWindow;
  /** fires when the request is cancelled or fails before its end: the BLS calls it made follow */
  children?: ClientGone;
  unlisten?: () => void;
  /** this request as a holder in the call chain of the BLS calls it makes (held until its batch is answered) */
  link: ChainLink;
}

const noop = (): void => undefined;
const live = (e: InFlight): boolean => e.state === 'running' || e.state === 'open';
const ALREADY_OVER: CancelSignal = { aborted: true, onAbort: () => () => undefined };

export interface StubRunsOptions {
  model: string;
  version: string;
  /** the instance this stub runs (the holder named in call chains) */
  instance: string;
  config: ModelConfig;
  decoupled: boolean;
  finalTimeoutMs: number;
  /** how long a request's send window may stay full before the request is cancelled (send-window.ts) */
  sendStallMs: number;
  log(msg: string): void;
  /** sends a message to the stub (a cancellation) */
  tell(message: ToStubCall): void;
  /** where a decoupled model's per-response events go (request.response), on the schedulers' clock in µs */
  events?: { emit(e: SchedulerEvent): void; now(): number };
}

export class StubRuns {
  private readonly batches = new Map<number, Batch>();
  private readonly entries = new Map<string, InFlight>();
  private readonly batching: boolean;
  private readonly who: string;
  private readonly closedRuns: number[] = [];
  private readonly whenAllCancelled = new Map<number, () => void>();
  /** runs sent and not answered, in the order the stub takes them (the head one is running) */
  private readonly unanswered: number[] = [];
  private readonly acks: AckBatch;

  constructor(private readonly o: StubRunsOptions) {
    this.batching = (o.config.max_batch_size ?? 0) > 0;
    this.who = `model.py of decoupled model '${o.model}'`;
    this.acks = new AckBatch((m) => o.tell(m));
  }

  /**
   * A batch was sent as `run`: its requests can now be named by BLS calls, responses and cancellations.
   * `allCancelled` is called when every request of it is cancelled (the executor may then take the batch
   * back if the stub has not begun it, so a cancelled request never runs).
   */
  sent(run: number, batch: Batch, allCancelled?: () => void): void {
    this.batches.set(run, batch);
    // the stub runs its batches one at a time, in order: this one starts when those before it are answered
    this.unanswered.push(run);

    if (allCancelled) this.whenAllCancelled.set(run, allCancelled);
    batch.forEach((request, index) => {
      const link: ChainLink = { model: this.o.model, version: this.o.version, instance: this.o.instance, held: true };
      const entry: InFlight = { request, state: this.o.decoupled ? 'open' : 'running', responses: 0, link };
      this.entries.set(`${run}:${index}`, entry);
      const signal = request.payload.cancelled;
      if (signal?.aborted) this.cancel(run, index, entry);
      else if (signal) entry.unlisten = signal.onAbort(() => this.cancel(run, index, entry));
      if (!this.o.decoupled) return;
      const stream = request.payload.stream;
      if (stream) stream.cancel = () => this.cancel(run, index, entry);
      entry.window = new SendWindow({
        stallMs: this.o.sendStallMs,
        ack: (n) => this.acks.add(run, index, n),
        stalled: () => this.stalled(run, index, entry),
      });
      entry.timer = setTimeout(() => {
        if (!live(entry)) return;
        const s = this.o.finalTimeoutMs / 1000;
        this.tellCancelled(run, index, entry);
        this.responded(entry, true, 'fail', this.o.events?.now(), `no final response within ${s} s`);
        this.close(run, entry, 'failed');
        this.o.log(`request '${request.id}' of decoupled model '${this.o.model}' got no final response within ${s} s: failed (parameter ${FINAL_TIMEOUT_KEY})`);
        stream?.fail(new Error(`decoupled model '${this.o.model}' sent no final response for request '${request.id}' within ${s} s (parameter ${FINAL_TIMEOUT_KEY})`));
      }, timerDelayMs(this.o.finalTimeoutMs));
      entry.timer.unref?.();
    });
    if (this.unanswered.length === 1) this.began(run);
  }

  /** A batch the scheduler took back before the stub saw it: it runs elsewhere, under another id. */
  withdrawn(run: number): void {
    const batch = this.batches.get(run);
    this.batches.delete(run);
    this.whenAllCancelled.delete(run);
    this.leaveOrder(run);
    batch?.forEach((_, index) => {
      const key = `${run}:${index}`;
      const entry = this.entries.get(key);
      entry?.unlisten?.();
      if (entry) entry.link.held = false;
      this.entries.delete(key);
    });
  }

  /** The stub answered the batch (`error`: it failed as a whole, and the scheduler says so to each request). */
  answered(run: number, error: unknown): void {
    const batch = this.batches.get(run);
    this.whenAllCancelled.delete(run);
    this.leaveOrder(run);
    if (!batch) return;
    batch.forEach((_, index) => {
      const entry = this.entries.get(`${run}:${index}`);
      if (!entry) return;
      entry.link.held = false; // execute() returned: the instance is free of it, even if responses follow
      if (error) {
        // a decoupled request failed with its batch: a thread of the model may still send for it, and would
        // wait for a window nobody acknowledges any more; told it is cancelled, its sends end at once
        if (live(entry) && this.o.decoupled) this.tellCancelled(run, index, entry);
        this.close(run, entry, 'failed');
      } else if (entry.state === 'running') this.close(run, entry, 'final');
    });
    if (this.o.decoupled) return this.forgetIfDone(run);
    // an ordinary model's requests end with their batch: nothing of them is needed after it
    this.batches.delete(run);
    batch.forEach((_, index) => this.entries.delete(`${run}:${index}`));
  }

  /** The request a BLS call was made for. */
  request(run: number | undefined, index: number | undefined): SchedulerRequest<StreamingPayload> | undefined {
    if (run === undefined) return undefined;
    const batch = this.batches.get(run);
    return batch?.[index ?? 0] ?? batch?.[0];
  }

  /**
   * The call chain of a BLS call made for request (run, index): the chain above that request and the
   * request itself. A call that names no request it knows (made from a thread model.py started outside
   * execute(), or after the request ended) is given the longest chain among the requests this stub still
   * works on, so the nesting bound holds on every path (a response thread recursing into its own model
   * cannot nest without bound; that request is not counted as holding its instance for the call, since
   * it is not known to wait for it); undefined when the stub works on none. `detached`: the call came from a
   * thread other than execute()'s; a decoupled model's execute() need not wait for that thread, so the
   * call is not counted as holding the request's instance.
   */
  chainOf(run: number | undefined, index: number | undefined, detached = false): CallChain | undefined {
    let entry = run === undefined ? undefined : this.entries.get(`${run}:${index ?? 0}`);
    let guessed = false;
    if (!entry || !live(entry)) {
      entry = undefined;
      guessed = true;
      for (const e of this.entries.values()) {
        if (live(e) && (!entry || chainLength(e) > chainLength(entry))) entry = e;
      }
    }
    if (!entry) return undefined;
    // a guessed parent is for the bound only: that request is not known to wait for the call
    const link = guessed || (detached && this.o.decoupled) ? { ...entry.link, held: false } : entry.link;
    return [...(entry.request.payload.callChain ?? []), link];
  }

  /** Fires when that request is cancelled or fails before its end (an already ended one: at once). */
  childrenOf(run: number | undefined, index: number | undefined): CancelSignal | undefined {
    if (run === undefined) return undefined;
    const entry = this.entries.get(`${run}:${index ?? 0}`);
    if (!entry) return undefined;
    if (!live(entry)) return entry.state === 'final' ? undefined : ALREADY_OVER;
    return (entry.children ??= new ClientGone());
  }

  /** One response of the decoupled model. */
  response(m: DecoupledResponse, body: Uint8Array): void {
    const entry = this.entries.get(`${m.run}:${m.index}`);
    if (!entry || entry.state !== 'open') {
      if (entry?.state === 'cancelled') return;
      const id = entry?.request.id ?? this.request(m.run, m.index)?.id;
      this.o.log(`refused a response of decoupled model '${this.o.model}' for request '${id ?? `${m.run}:${m.index}`}': ${entry ? 'the request already has its final response or failed' : 'no such request in flight'}`);
      return;
    }
    const stream = entry.request.payload.stream;
    const arrived = this.o.events?.now();
    // counts in the window until its front end says it left (a request without a stream: at once)
    const left = entry.window?.took(body.byteLength) ?? noop;
    if (!stream) left();
    if (m.error !== undefined) {
      const code = errorCodeOf(m.code);
      this.responded(entry, m.final, code === 'CANCELLED' ? 'cancel' : 'fail', arrived, m.error);
      stream?.response(null, m.final, new InferError(code, m.error), left);
    } else if (m.outputs && m.outputs.length > 0) {
      let outputs;
      try {
        outputs = readCheckedOutputs(this.o.config, m.outputs, body, this.batching ? entry.request.batchSize : undefined, this.who);
      } catch (err) {
        this.responded(entry, true, 'fail', arrived, (err as Error).message);
        this.tellCancelled(m.run, m.index, entry);
        this.close(m.run, entry, 'failed');
        stream?.fail(err as Error);
        return;
      }
      this.responded(entry, m.final, 'success', arrived);
      stream?.response(outputs, m.final, undefined, left);
    } else {
      this.responded(entry, m.final, 'empty', arrived);
      stream?.response(null, m.final, undefined, left);
    }
    if (m.final) this.close(m.run, entry, 'final');
  }

  /** One request.response event: from the previous response (or the batch's start) to `arrived`, then reading it. */
  private responded(entry: InFlight, final: boolean, outcome: ResponseOutcome, arrived: number | undefined, error?: string): void {
    const ev = this.o.events;
    if (!ev || arrived === undefined) return;
    const now = ev.now();
    const from = entry.lastAt ?? arrived;
    entry.lastAt = now;
    ev.emit({
      type: 'request.response', t: now, model: this.o.model, version: this.o.version, request_id: entry.request.id ?? '',
      index: entry.responses++, final, outcome, infer_us: Math.max(0, Math.round(arrived - from)), output_us: Math.max(0, Math.round(now - arrived)),
      ...(error !== undefined ? { error } : {}),
    });
  }

  /** `run` no longer holds the stub: the next batch in order starts now. */
  private leaveOrder(run: number): void {
    const i = this.unanswered.indexOf(run);
    if (i < 0) return;
    this.unanswered.splice(i, 1);
    const head = this.unanswered[0];
    if (i === 0 && head !== undefined) this.began(head);
  }

  /** The stub began `run`: its requests' first responses are timed from now. */
  private began(run: number): void {
    const now = this.o.events?.now();
    if (now === undefined || !this.o.decoupled) return;
    this.batches.get(run)?.forEach((_, i) => {
      const e = this.entries.get(`${run}:${i}`);
      if (e) e.lastAt = now;
    });
  }

  /** The stub died: every request still in flight fails with the cause (a decoupled one through its stream). */
  failAll(error: Error): void {
    for (const [key, entry] of [...this.entries]) {
      entry.link.held = false;
      if (!live(entry)) continue;
      const open = entry.state === 'open';
      if (open) this.responded(entry, true, 'fail', this.o.events?.now(), error.message);
      this.close(Number(key.split(':')[0]), entry, 'failed');
      if (open) entry.request.payload.stream?.fail(error);
    }
    this.batches.clear();
    this.entries.clear();
    this.whenAllCancelled.clear();
    this.unanswered.length = 0;
  }

  /** decoupled requests still waiting for their final response */
  get inFlight(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.state === 'open') n++;
    return n;
  }

  private cancel(run: number, index: number, entry: InFlight): void {
    if (!live(entry)) return;
    this.tellCancelled(run, index, entry);
    entry.children?.abort();
    // a decoupled request ends here (its client is gone); an ordinary one still answers, and that answer is dropped
    if (entry.state === 'open') {
      this.responded(entry, true, 'cancel', this.o.events?.now());
      this.close(run, entry, 'cancelled');
    }
    const all = this.whenAllCancelled.get(run);
    if (all && this.batches.get(run)?.every((_, i) => this.entries.get(`${run}:${i}`)?.told)) {
      this.whenAllCancelled.delete(run);
      all();
    }
  }

  /** The request's window stayed full: its client reads nothing. Cancelled, so the model stops waiting to send. */
  private stalled(run: number, index: number, entry: InFlight): void {
    if (entry.state !== 'open') return;
    const s = this.o.sendStallMs / 1000;
    const id = entry.request.id ?? '';
    const why = `the client of request '${id}' of decoupled model '${this.o.model}' took none of its responses for ${s} s while the model waited to send more: cancelled (parameter ${SEND_STALL_KEY})`;
    this.tellCancelled(run, index, entry);
    this.responded(entry, true, 'cancel', this.o.events?.now(), why);
    this.close(run, entry, 'cancelled');
    this.o.log(why);
    entry.request.payload.stream?.fail(new InferError('UNAVAILABLE', why));
  }

  private tellCancelled(run: number, index: number, entry: InFlight): void {
    if (entry.told) return;
    entry.told = true;
    this.o.tell({ type: 'cancel', run, index });
  }

  private close(run: number, entry: InFlight, state: InFlight['state']): void {
    entry.state = state;
    clearTimeout(entry.timer);
    entry.window?.close();
    entry.unlisten?.();
    entry.unlisten = undefined;
    if (state !== 'final') entry.children?.abort();
    if (this.o.decoupled) this.forgetIfDone(run);
  }

  private forgetIfDone(run: number): void {
    const batch = this.batches.get(run);
    if (!batch) return;
    const keys = batch.map((_, i) => `${run}:${i}`);
    if (keys.some((k) => this.entries.get(k)?.state === 'open') || this.closedRuns.includes(run)) return;
    // keep the closed entries of the last few batches for late-response diagnostics; drop older ones
    this.closedRuns.push(run);
    while (this.closedRuns.length > 64) {
      const old = this.closedRuns.shift()!;
      const b = this.batches.get(old);
      b?.forEach((_, i) => this.entries.delete(`${old}:${i}`));
      this.batches.delete(old);
    }
  }
}

const chainLength = (e: InFlight): number => e.request.payload.callChain?.length ?? 0;
