/**
 * One generate request as its step loop sees it (a GenSink): each token becomes a response when the
 * request streams, else the whole text one response at its end; the loop's end is the request's one
 * answer. A class, not closures made per request: under tsx each closure bound to a name pays a
 * defineProperty (ARCHITECTURE.md, hot paths).
 */
import { errors, InferError, type InferResult } from '@inferscope/core';
import type { Clock, SchedulerSettle } from '@inferscope/core/scheduler';
import type { GenOutcome, GenSink } from '@inferscope/core/iterative';
import type { ResponseStream } from '../infer/response-stream';
import { ByteText, textOutput } from './generate-io';
import type { StepEvents } from './step-events';

export class GenerationSink implements GenSink {
  private readonly text = new ByteText();
  private whole = '';
  private finalSent = false;

  constructor(
    private readonly id: string,
    private readonly maxTokens: number,
    /** a response per token (else the whole text in one) */
    private readonly perToken: boolean,
    private readonly stream: ResponseStream | undefined,
    private readonly events: StepEvents,
    private readonly clock: Clock,
    private readonly settle: SchedulerSettle<InferResult>,
    /** after the answer */
    private readonly ended: () => void,
  ) {}

  onToken(token: number, index: number): void {
    const last = index + 1 === this.maxTokens;
    const piece = this.text.push(token) + (last ? this.text.end() : '');
    if (this.perToken) this.send(piece, last);
    else this.whole += piece;
  }

  onEnd(outcome: GenOutcome): void {
    if (outcome.ok) {
      if (!this.perToken) this.send(this.whole + this.text.end(), true);
      else if (!this.finalSent) this.send(null, true); // an end token stopped it: the final flag alone
      this.settle(null, []);
    } else {
      const error = outcome.reason === 'cancelled' ? errors.CLIENT_CANCELLED(outcome.message)
        : new InferError(outcome.reason === 'rejected' ? 'INVALID_ARG' : 'INTERNAL', outcome.message);
      if (outcome.reason !== 'cancelled') this.stream?.fail(error);
      this.settle(error);
    }
    this.ended();
  }

  private send(out: string | null, final: boolean): void {
    if (!this.stream) return;
    this.finalSent ||= final;
    this.events.response(this.id, this.clock.now(), final, out === null ? 'empty' : 'success');
    this.stream.response(out === null ? null : textOutput(out), final);
  }
}
