/**
 * Per-phase figures of a simulation: each request belongs to the phase it arrived in, and carries its share
 * of its batch's compute (batch compute / requests in the batch), so a phase's compute per request is the
 * summary's busy_us_per_request restricted to that phase, and the phases' busy times add up to the run's.
 */
import type { SchedulerEvent } from '../events';
import type { Scenario } from '../load/scenario';
import { percentile } from './summary';
import { requestOutcome } from '../stats/request-outcome';

export interface PhaseFigures {
  phase: number;
  label: string;
  start_s: number;
  end_s: number;
  requests: number;
  p99_us: number;
  /** requests answered per second of the phase */
  throughput_per_s: number;
  /** instance busy time per request answered, µs */
  compute_per_request_us: number;
  /** the max_queue_delay_microseconds in force when the phase ended */
  delay_us: number;
  /** autotune changes made during the phase */
  changes: number;
}

export class PhaseCollector {
  private readonly bounds: number[] = [];
  private readonly labels: string[] = [];
  private readonly phaseOf = new Map<string, number>();
  /** batch id -> [requests in it, requests not answered yet] */
  private readonly batchRequests = new Map<string, [number, number]>();
  private readonly lat: number[][];
  private readonly busy: number[];
  private readonly delayAt: number[];
  private readonly changes: number[];
  private delay: number;

  constructor(scenario: Scenario, private readonly model: string, initialDelayUs: number) {
    let t = 0;
    for (const [i, p] of scenario.phases.entries()) {
      t += p.duration_s * 1e6;
      this.bounds.push(t);
      this.labels.push(p.label ?? `${i + 1}: ${p.type}${'rate' in p ? ` ${p.rate}/s` : ''}`);
    }
    this.lat = this.bounds.map(() => []);
    this.busy = this.bounds.map(() => 0);
    this.changes = this.bounds.map(() => 0);
    this.delay = initialDelayUs;
    this.delayAt = this.bounds.map(() => initialDelayUs);
  }

  private indexAt(t: number): number {
    const i = this.bounds.findIndex((b) => t < b);
    return i < 0 ? this.bounds.length - 1 : i;
  }

  add(e: SchedulerEvent): void {
    if (!('model' in e) || e.model !== this.model) return;
    switch (e.type) {
      case 'request.queued':
        this.phaseOf.set(e.request_id, this.indexAt(e.t));
        return;
      case 'batch.formed':
        this.batchRequests.set(e.batch_id, [e.request_ids.length, e.request_ids.length]);
        return;
      case 'request.completed': {
        const i = this.phaseOf.get(e.request_id);
        this.phaseOf.delete(e.request_id);
        const b = this.batchRequests.get(e.batch_id);
        if (b && --b[1] === 0) this.batchRequests.delete(e.batch_id);
        if (i === undefined || requestOutcome(e) !== 'success') return;
        this.lat[i].push(e.total_us);
        this.busy[i] += e.compute_us / (b?.[0] ?? 1);
        return;
      }
      case 'config.changed': {
        const c = e.changes.find((x) => x.path === 'dynamic_batching.max_queue_delay_microseconds');
        const i = this.indexAt(e.t);
        if (e.by === 'autotune') this.changes[i]++;
        if (c) {
          this.delay = Number(c.new);
          for (let k = i; k < this.delayAt.length; k++) this.delayAt[k] = this.delay;
        }
        return;
      }
    }
  }

  figures(): PhaseFigures[] {
    return this.bounds.map((end, i) => {
      const start = i === 0 ? 0 : this.bounds[i - 1];
      const lat = Float64Array.from(this.lat[i]).sort();
      const n = lat.length;
      return {
        phase: i + 1,
        label: this.labels[i],
        start_s: start / 1e6,
        end_s: end / 1e6,
        requests: n,
        p99_us: percentile(lat, 0.99),
        throughput_per_s: Math.round((n / Math.max(1e-9, (end - start) / 1e6)) * 10) / 10,
        compute_per_request_us: n ? Math.round((this.busy[i] / n) * 10) / 10 : 0,
        delay_us: this.delayAt[i],
        changes: this.changes[i],
      };
    });
  }
}
