/**
 * An iterative model's run in the server's scheduler events, so statistics, Prometheus and the dashboard
 * count it as Triton's statistics extension counts a decoupled model: a request is queued when the step
 * loop accepts it and leaves the queue at the step it first joins (`batch.formed` lists the joiners); every
 * step is one execution (`batch.started` / `batch.completed`, its size the step's rows); a sequence's end
 * is its `request.completed` (queue = submit to first step, compute = first step to end); each response is
 * a `request.response` (Triton's response statistics: time since the previous response). A sequence
 * cancelled before it joined a step is a `request.rejected` with its queued time, as a queued request
 * cancelled from the dynamic batcher. Core's own events (IterEvent) are also published on the bus as
 * `iterative` for the live gateway's token timeline and KV block map.
 */
import type { EventBus, ErrorCode, ResponseOutcome } from '@inferscope/core';
import { CANCELLED_BY_CLIENT, type IterEvent } from '@inferscope/core/iterative';

interface Seq {
  queuedAt: number;
  firstStepAt?: number;
  lastStep?: string;
}

/**
 * A request's responses so far. Kept apart from Seq and dropped by `ended`, not by `seq_finished`: the
 * step loop tells its listener a sequence finished before its sink sends the last response (the sinks
 * write after the next step is handed over).
 */
interface Responses {
  /** when its previous response left (its first: its first step's start) */
  lastAt?: number;
  count: number;
}

export class StepEvents {
  private readonly seqs = new Map<string, Seq>();
  private readonly responses = new Map<string, Responses>();

  constructor(
    private readonly bus: EventBus,
    private readonly model: string,
    private readonly version: string,
    private readonly instance: string,
    private readonly idPrefix: string,
  ) {}

  private base(t: number) {
    return { t, model: this.model, version: this.version };
  }

  private stepId(step: number): string {
    return `${this.idPrefix}step-${step}`;
  }

  /** the request's id on the bus (the scheduler's id, which carries its prefix) */
  fold(e: IterEvent): void {
    switch (e.type) {
      case 'seq_queued':
        this.seqs.set(e.id, { queuedAt: e.t });
        this.responses.set(e.id, { count: 0 });
        this.bus.emit({ type: 'request.queued', ...this.base(e.t), request_id: e.id, priority: 1, batch_size: 1, queue_depth: this.seqs.size });
        break;
      case 'step_started': {
        const joined: string[] = [];
        for (const id of e.joined) {
          const s = this.seqs.get(id);
          if (!s || s.firstStepAt !== undefined) continue; // a preempted sequence rejoining left the queue already
          s.firstStepAt = e.t;
          const r = this.responses.get(id);
          if (r) r.lastAt ??= e.t;
          joined.push(id);
        }
        this.stepRows.set(e.step, e.rows.length);
        for (const r of e.rows) {
          const s = this.seqs.get(r.id);
          if (s) s.lastStep = this.stepId(e.step);
        }
        const id = this.stepId(e.step);
        const wait = joined.length > 0 ? e.t - this.seqs.get(joined[0]!)!.queuedAt : 0;
        this.bus.emit({ type: 'batch.formed', ...this.base(e.t), batch_id: id, request_ids: joined, size: e.rows.length, trigger: 'immediate', oldest_wait_us: wait });
        this.bus.emit({ type: 'batch.started', ...this.base(e.t), batch_id: id, instance: this.instance, size: e.rows.length });
        break;
      }
      case 'step_finished':
        this.bus.emit({
          type: 'batch.completed', ...this.base(e.t), batch_id: this.stepId(e.step), instance: this.instance,
          size: this.rowsOf(e.step), compute_us: e.durationUs, ok: true,
        });
        break;
      case 'seq_finished': {
        const s = this.seqs.get(e.id);
        this.seqs.delete(e.id);
        if (!s) break;
        const code: ErrorCode | undefined = e.outcome === 'done' ? undefined : e.outcome === 'cancelled' ? 'CANCELLED' : 'INTERNAL';
        if (s.firstStepAt === undefined) {
          this.bus.emit({
            type: 'request.rejected', ...this.base(e.t), request_id: e.id, reason: e.outcome === 'cancelled' ? 'cancelled' : 'failed',
            message: e.outcome === 'cancelled' ? CANCELLED_BY_CLIENT : 'the generation failed', priority: 1, queued_us: e.t - s.queuedAt,
          });
          break;
        }
        this.bus.emit({
          type: 'request.completed', ...this.base(e.t), request_id: e.id, batch_id: s.lastStep ?? '', priority: 1, batch_size: 1,
          queue_us: s.firstStepAt - s.queuedAt, compute_us: e.t - s.firstStepAt, total_us: e.t - s.queuedAt, ok: e.outcome === 'done',
          ...(code ? { code, error: e.outcome } : {}),
        });
        break;
      }
      default:
        break;
    }
    this.bus.emit({ type: 'iterative', ...this.base(e.t), event: e });
  }

  /** One response left for the request `id` (index = its responses so far). */
  response(id: string, t: number, final: boolean, outcome: ResponseOutcome): void {
    const r = this.responses.get(id);
    const since = r?.lastAt ?? t;
    const index = r ? r.count++ : 0;
    if (r) r.lastAt = t;
    this.bus.emit({ type: 'request.response', ...this.base(t), request_id: id, index, final, outcome, infer_us: Math.max(0, t - since), output_us: 0 });
  }

  /** The request was answered (its sink's end): no response follows. */
  ended(id: string): void {
    this.responses.delete(id);
  }

  private readonly stepRows = new Map<number, number>();
  private rowsOf(step: number): number {
    const n = this.stepRows.get(step) ?? 1;
    this.stepRows.delete(step);
    return n;
  }
}
