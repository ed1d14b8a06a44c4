/**
 * Continuous load for one perf step, measured in windows: the load keeps running across windows
 * (like perf_analyzer) so no window starts cold or ends with a drain; each `takeWindow()` hands back the
 * requests that completed since the previous one.
 */
import type { InferCall, InferTarget } from '../../loadgen/targets';
import type { RequestRecord } from '../../loadgen/runner';
import { mulberry32 } from '../../loadgen/input-generator';
import type { SequenceSlots } from '../../loadgen/sequences';

export type StepMode =
  | { kind: 'concurrency'; concurrency: number }
  | { kind: 'rate'; rate: number; distribution: 'constant' | 'poisson'; seed?: number };

export interface Window {
  records: RequestRecord[];
  elapsed_s: number;
}

const nowUs = () => performance.now() * 1000;

export class StepLoad {
  private records: RequestRecord[] = [];
  private windowStart = nowUs();
  private readonly start = nowUs();
  private stopping = false;
  private inFlight = new Set<Promise<void>>();
  private loops: Promise<void>[] = [];
  sent = 0;
  answered = 0;
  errors = 0;

  /** the open sender's next sequence slot (round robin over --num-of-sequences) */
  private nextSlot = 0;

  constructor(
    private readonly target: InferTarget,
    private readonly call: InferCall,
    mode: StepMode,
    /** a stateful model's sequences: each closed client is one slot; the open sender cycles through `slots` */
    private readonly sequences?: { slots: SequenceSlots; open: number },
  ) {
    if (mode.kind === 'concurrency') {
      for (let i = 0; i < mode.concurrency; i++) this.loops.push(this.closedClient(i));
    } else {
      this.loops.push(this.openSender(mode.rate, mode.distribution, mode.seed ?? 1));
    }
  }

  private one(slot: number): Promise<void> {
    const sentAt = nowUs();
    this.sent++;
    const call = this.sequences ? { ...this.call, sequence: this.sequences.slots.next(slot) } : this.call;
    const p = this.target.infer(call).then((outcome) => {
      this.answered++;
      if (!outcome.ok) this.errors++;
      this.records.push({ sent_us: sentAt - this.start, lag_us: 0, latency_us: nowUs() - sentAt, batch_size: this.call.batchSize, outcome });
    });
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private async closedClient(slot: number): Promise<void> {
    while (!this.stopping) await this.one(slot);
  }

  private async openSender(rate: number, distribution: 'constant' | 'poisson', seed: number): Promise<void> {
    const rng = mulberry32(seed);
    let next = nowUs();
    while (!this.stopping) {
      while (next <= nowUs() && !this.stopping) {
        void this.one(this.sequences ? this.nextSlot++ % this.sequences.open : 0);
        const gapUs = distribution === 'constant' ? 1e6 / rate : (-Math.log(1 - rng()) * 1e6) / rate;
        next += gapUs;
      }
      const waitMs = (next - nowUs()) / 1000;
      await (waitMs > 2 ? new Promise((r) => setTimeout(r, waitMs - 1)) : new Promise<void>((r) => setImmediate(r)));
    }
  }

  takeWindow(): Window {
    const t = nowUs();
    const w = { records: this.records, elapsed_s: (t - this.windowStart) / 1e6 };
    this.records = [];
    this.windowStart = t;
    return w;
  }

  /** Stops sending and waits until every request sent has been answered. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
