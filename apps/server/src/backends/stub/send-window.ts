/**
 * Backpressure from a client-facing stream to a decoupled model's response sender (issue 56). Without it
 * the server took every response the model sent and held it until the client read it: a gRPC or SSE client
 * that never read one request's 200 responses of 1 MiB cost the server ~190 MB, and the model was never
 * slowed.
 *
 * Credit, per request: the stub's sender (python decoupled.py) may have at most SEND_WINDOW_BYTES or
 * SEND_WINDOW_RESPONSES of responses not yet acknowledged; past that, `response_sender.send` waits. The
 * server acknowledges a response (`drained`, to the stub) once the front end that streams it says it has
 * left the server (handed to the socket / HTTP/2 stream, which waits on the client's flow control), so
 * what one stuck stream holds in the server is the window plus one response, whatever the model sends.
 *
 * A client that stays stuck holds the model's sending thread (and, when it sends from execute(), the
 * instance): when the window stays full for the stall bound (parameter SEND_STALL_KEY, default 60 s)
 * with nothing leaving, the request is cancelled, as if its client had gone (the model sees
 * is_cancelled(), its wait ends) and the stream gets an error. Progress is counted in whole responses (a
 * response has left or not), so one response larger than the window that a slow client needs longer than
 * the stall bound to take counts as stuck too.
 */
import { timerDelayMs } from '@inferscope/core/clock';
import { numericParameter, SEND_STALL_KEY, type ModelConfig } from '@inferscope/core/config';

export const SEND_WINDOW_BYTES = 4 * 1024 * 1024;
export const SEND_WINDOW_RESPONSES = 64;

export const DEFAULT_SEND_STALL_S = 60;

/** The environment that gives the stub its window (decoupled.py reads it). */
export const SEND_WINDOW_ENV = { INFERSCOPE_SEND_WINDOW: `${SEND_WINDOW_BYTES},${SEND_WINDOW_RESPONSES}` };

export function sendStallMs(config: ModelConfig): number {
  const s = numericParameter(config, SEND_STALL_KEY);
  return (s && s > 0 ? s : DEFAULT_SEND_STALL_S) * 1000;
}

export interface SendWindowOptions {
  stallMs: number;
  /** `n` responses of this request left the server: tell the stub */
  ack(n: number): void;
  /** the window stayed full for stallMs */
  stalled(): void;
}

/** The responses of one decoupled request that are in the server: arrived from the stub, not yet left for the client. */
export class SendWindow {
  private bytes = 0;
  private count = 0;
  private closed = false;
  private timer?: ReturnType<typeof setTimeout>;

  constructor(private readonly o: SendWindowOptions) {}

  /** responses held now (for tests and diagnostics) */
  get held(): { bytes: number; responses: number } {
    return { bytes: this.bytes, responses: this.count };
  }

  /** A response of `bytes` arrived; returns what its front end calls once it has left (once; more calls do nothing). */
  took(bytes: number): () => void {
    this.bytes += bytes;
    this.count++;
    this.watch();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.bytes -= bytes;
      this.count--;
      if (this.closed) return;
      this.o.ack(1);
      this.watch();
    };
  }

  /** The request ended (final response, cancelled, failed): no more acknowledgements or stall. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** the stall clock runs while the window is full (the stub waits) and stops when something leaves */
  private watch(): void {
    const full = this.bytes >= SEND_WINDOW_BYTES || this.count >= SEND_WINDOW_RESPONSES;
    if (full && !this.timer && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.closed) this.o.stalled();
      }, timerDelayMs(this.o.stallMs));
      this.timer.unref?.();
    } else if (!full && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}

/**
 * Acknowledgements gathered per request and sent once per event-loop turn: a token streamer's many small
 * responses leave in bursts, and one `drained` per response would double the stub's messages.
 */
export class AckBatch {
  private readonly pending = new Map<string, { run: number; index: number; n: number }>();
  private scheduled = false;

  constructor(private readonly tell: (m: { type: 'drained'; run: number; index: number; n: number }) => void) {}

  add(run: number, index: number, n: number): void {
    const key = `${run}:${index}`;
    const p = this.pending.get(key);
    if (p) p.n += n;
    else this.pending.set(key, { run, index, n });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const all = [...this.pending.values()];
      this.pending.clear();
      for (const a of all) this.tell({ type: 'drained', ...a });
    });
  }
}
