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
 * A batch handed to an instance that sat idle pays the measured cost after idle and, when the server's
 * main thread is spinning (RealClock's sub-millisecond waits), the measured scatter of a woken instance's
 * batch with the main thread spinning (cost model's spin_wake_us) in place of the spread.
 */
import type { Clock } from '../clock/clock';
import type { Rng } from '../load/rng';
import type { Executor, InstanceInfo, SchedulerRequest } from '../scheduler/types';
import { baseLatencyUs, idlePenaltyUs, latencyUs, SPIN_WAKE_MIN_IDLE_US, spinWakeUs, type CostModel } from './cost-model';
import { CpuHost, isCpuKind } from './cpu-host';

type Done = (error: unknown, results?: string[]) => void;

export interface SimExecutorOptions {
  /** the cores CPU instances share (default: no contention) */
  host?: CpuHost;
  /** batches an instance may hold behind its running one (default 0) */
  prefetch?: number;
  /** when the main thread notices a batch that ended at t (main-thread stalls defer it; default at once) */
  noticeAt?: (tUs: number) => number;
  /** whether the server's main thread spins now (RealClockModel.spinning; absent: not modelled) */
  mainSpinning?: () => boolean;
  /** the main thread took an answer in at t (RealClockModel.activity: its loop ran an iteration) */
  mainActivity?: (tUs: number) => void;
  /** a spinning main thread holds a core the instances then share less of (CpuHost.begin; default true) */
  spinTakesCore?: boolean;
}
interface Held<P> { batch: readonly SchedulerRequest<P>[]; done: Done }

export class SimExecutor<P = unknown> implements Executor<P, string> {
  readonly prefetch: number;
  /** instance name -> batches handed to it behind its running one */
  private readonly held = new Map<string, Held<P>[]>();
  private readonly running = new Set<string>();
  /** instance name -> when its last batch ended (for the cost after idle) */
  private readonly lastEnd = new Map<string, number>();

  private readonly host: CpuHost;
  private readonly noticeAt: (tUs: number) => number;
  private readonly mainSpinning?: () => boolean;
  private readonly mainActivity?: (tUs: number) => void;
  private readonly spinTakesCore: boolean;

  constructor(
    private readonly clock: Clock,
    private readonly cost: CostModel,
    private readonly rng: Rng,
    o: SimExecutorOptions = {},
  ) {
    this.host = o.host ?? new CpuHost();
    this.prefetch = o.prefetch ?? 0;
    this.noticeAt = o.noticeAt ?? ((t) => t);
    this.mainSpinning = o.mainSpinning;
    this.mainActivity = o.mainActivity;
    this.spinTakesCore = o.spinTakesCore ?? true;
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
    const now = this.clock.now();
    const idle = now - (this.lastEnd.get(instance) ?? -Infinity);
    this.running.add(instance);
    const spinning = this.mainSpinning;
    if (spinning === undefined) return this.compute(instance, batch, done, held, idle, false);
    // Whether the main thread spins is known once the work of this instant is done (the load driver arms
    // its next send after the request that started this batch), so it is looked at in a timer of the same
    // instant, after them.
    this.clock.setTimer(now, () => this.compute(instance, batch, done, held, idle, spinning()));
  }

  private compute(instance: string, batch: readonly SchedulerRequest<P>[], done: Done, held: boolean, idle: number, mainSpins: boolean): void {
    let size = 0;
    for (const r of batch) size += r.batchSize;
    const now = this.clock.now();
    const shares = isCpuKind(this.cost.kind);
    const slowdown = shares ? this.host.begin(now, mainSpins && this.spinTakesCore) : 1;
    const took = latencyUs(this.cost, size, this.rng, slowdown, held) + Math.round(idlePenaltyUs(this.cost, idle));
    const spinning = this.mainSpinning;
    const spinWake = spinning !== undefined && this.cost.spin_wake_us !== undefined && idle >= SPIN_WAKE_MIN_IDLE_US;
    // The table's times were measured with the main thread asleep while it waited (answer_wake_us of them is
    // its wake-up): the instance itself is done that much sooner, and a main thread that is turning its
    // loop then sees the answer at once; one that sleeps sees it after its wake-up. A held batch's time
    // (the held table) has no hand-off in it: it is the instance's own, and only the answer waits.
    const wake = spinning !== undefined && !spinWake && this.cost.answer_wake_us ? Math.min(this.cost.answer_wake_us, took - 1) : 0;
    const early = held && this.cost.held_table ? 0 : wake;
    const end = () => {
      if (shares) this.host.end();
      this.running.delete(instance);
      this.lastEnd.set(instance, this.clock.now());
      // the instance goes straight on to the batch it holds, before the scheduler hears of this one
      const next = this.held.get(instance)?.shift();
      if (next) this.begin(instance, next.batch, next.done, true);
      const answer = () => {
        this.mainActivity?.(this.clock.now());
        done(null, batch.map((r) => r.id ?? ''));
      };
      const notice = () => {
        const seen = this.noticeAt(this.clock.now());
        if (seen > this.clock.now()) this.clock.setTimer(seen, answer);
        else answer();
      };
      if (wake > 0 && !spinning!()) this.clock.setTimer(this.clock.now() + wake, notice);
      else notice();
    };
    // A woken instance waits for a core while the main thread spins. The spin-wake draw is a whole batch's
    // scatter around the median after a sleeping main thread (its own noise included), so it stands in for
    // the spread: the batch costs its median, the cost after idle and the draw. Not the host's slowdown on
    // top: the draw is measured on the server's own woken batches (wake-probe.ts), contention included.
    const median = Math.round(baseLatencyUs(this.cost, size) + idlePenaltyUs(this.cost, idle));
    const busy = spinWake && mainSpins ? median + spinWakeUs(this.cost, this.rng) : took - early;
    this.clock.setTimer(now + Math.max(1, busy), end);
  }
}
