/**
 * An executor whose batches take the cost model's time on a (virtual) clock. It uses the scheduler's
 * callback form so a batch completes inside the clock's timer, keeping the whole simulation synchronous
 * and deterministic. Results are the request ids. CPU-kind cost models share the simulation's CpuHost.
 *
 * Prefetch, as the server's worker-thread executor declares it (OrtExecutor.prefetch = 1): an instance
 * may be handed its next batch while it computes; it begins that batch the moment the running one ends,
 * and the scheduler may take it back (reclaim) while it has not begun. This is what the real server
 * does, and it matters: a batch handed over early can no longer grow.
 *
 * A held batch takes the cost model's held table (measured with two in flight: the hand-off to and from the
 * worker is hidden behind the batch before), where it has one; a batch sent to an idle instance the table.
 *
 * A batch handed to an instance that sat idle pays the measured cost after idle.
 *
 * The seam for a model of the real server's host (bench/sim-host: its main thread's spinning, stalls and
 * wake-ups): a subclass overrides `startBatch` (when a handed-over batch begins computing, and what other
 * threads share the cores then), `busyUs` (how long it keeps the instance) and `answer` (when the
 * scheduler hears of it). The product's simulation uses this class as it is.
 */
import type { Clock } from '../clock/clock';
import type { Rng } from '../load/rng';
import type { Executor, InstanceInfo, SchedulerRequest } from '../scheduler/types';
import { idlePenaltyUs, latencyUs, type CostModel } from './cost-model';
import { CpuHost, isCpuKind } from './cpu-host';

type Done = (error: unknown, results?: string[]) => void;

export interface SimExecutorOptions {
  /** the cores CPU instances share (default: no contention) */
  host?: CpuHost;
  /** batches an instance may hold behind its running one (default 0) */
  prefetch?: number;
}
interface Held<P> { batch: readonly SchedulerRequest<P>[]; done: Done }

/** A batch about to begin computing on its instance (what the host-model hooks are given). */
export interface StartingBatch<P> {
  readonly instance: string;
  readonly batch: readonly SchedulerRequest<P>[];
  readonly done: Done;
  /** samples in it */
  readonly size: number;
  /** it waited behind the batch that just ended and begins now, without a hand-off */
  readonly held: boolean;
  /** µs its instance sat idle before it */
  readonly idleUs: number;
}

export class SimExecutor<P = unknown> implements Executor<P, string> {
  readonly prefetch: number;
  /** instance name -> batches handed to it behind its running one */
  private readonly held = new Map<string, Held<P>[]>();
  private readonly running = new Set<string>();
  /** instance name -> when its last batch ended (for the cost after idle) */
  private readonly lastEnd = new Map<string, number>();
  protected readonly host: CpuHost;

  constructor(
    protected readonly clock: Clock,
    protected readonly cost: CostModel,
    protected readonly rng: Rng,
    o: SimExecutorOptions = {},
  ) {
    this.host = o.host ?? new CpuHost();
    this.prefetch = o.prefetch ?? 0;
  }

  execute(instance: InstanceInfo, batch: readonly SchedulerRequest<P>[]): Promise<string[]> {
    return new Promise((resolve, reject) => this.executeWithCallback(instance, batch, (err, r) => (err ? reject(err) : resolve(r!))));
  }

  executeWithCallback(instance: InstanceInfo, batch: readonly SchedulerRequest<P>[], done: Done): void {
    if (this.running.has(instance.name)) {
      const q = this.held.get(instance.name) ?? [];
      q.push({ batch, done });
      this.held.set(instance.name, q);
      return;
    }
    this.begin(instance.name, batch, done);
  }

  reclaim(instance: InstanceInfo, batch: readonly SchedulerRequest<P>[]): boolean {
    const q = this.held.get(instance.name);
    const i = q ? q.findIndex((h) => h.batch === batch) : -1;
    if (i < 0) return false;
    q!.splice(i, 1);
    return true;
  }

  /** `held`: the batch waited behind the one that just ended and begins now, without a hand-off */
  private begin(instance: string, batch: readonly SchedulerRequest<P>[], done: Done, held = false): void {
    const idleUs = this.clock.now() - (this.lastEnd.get(instance) ?? -Infinity);
    this.running.add(instance);
    let size = 0;
    for (const r of batch) size += r.batchSize;
    this.startBatch({ instance, batch, done, size, held, idleUs });
  }

  /** Host-model hook: the batch begins computing now, no other thread sharing the cores. */
  protected startBatch(b: StartingBatch<P>): void {
    this.compute(b, 0);
  }

  /** The cost model's time for the batch: its (slowed) time with the spread, plus the cost after idle. */
  protected tookUs(b: StartingBatch<P>, slowdown: number): number {
    return latencyUs(this.cost, b.size, this.rng, slowdown, b.held) + Math.round(idlePenaltyUs(this.cost, b.idleUs));
  }

  /** Host-model hook: µs the batch keeps its instance (default: the cost model's time). */
  protected busyUs(b: StartingBatch<P>, slowdown: number, _otherThreads: number): number {
    return this.tookUs(b, slowdown);
  }

  /** Host-model hook: the instance is done with the batch; `deliver` tells the scheduler (default at once). */
  protected answer(_b: StartingBatch<P>, deliver: () => void): void {
    deliver();
  }

  /** Runs the batch now; `otherThreads`: cores' worth of the server's own threads busy beside the instances. */
  protected compute(b: StartingBatch<P>, otherThreads: number): void {
    const now = this.clock.now();
    const shares = isCpuKind(this.cost.kind);
    const slowdown = shares ? this.host.begin(otherThreads) : 1;
    const busy = this.busyUs(b, slowdown, otherThreads);
    const end = () => {
      if (shares) this.host.end();
      this.running.delete(b.instance);
      this.lastEnd.set(b.instance, this.clock.now());
      // the instance goes straight on to the batch it holds, before the scheduler hears of this one
      const next = this.held.get(b.instance)?.shift();
      if (next) this.begin(b.instance, next.batch, next.done, true);
      this.answer(b, () => b.done(null, b.batch.map((r) => r.id ?? '')));
    };
    this.clock.setTimer(now + Math.max(1, busy), end);
  }
}
