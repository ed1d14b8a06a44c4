/**
 * What the generator saw of a run, in fixed memory whatever its length: counters, and log histograms
 * (1% resolution, core's LogHistogram) of client latency and of send lag, the time between an arrival's
 * scheduled send and its actual send. Send lag is the generator's own accuracy: when it is large, the
 * figures describe the client, not the server.
 */
import { LogHistogram } from '@inferscope/core/stats';
import type { LoadClientFigures } from '@inferscope/core';

export interface RunCounters {
  sent: number;
  answered: number;
  errors: number;
  /** arrivals not sent because max_in_flight requests were already waiting for answers */
  skipped: number;
  elapsed_s: number;
}

export interface LatencySummary {
  count: number;
  ok: number;
  errors: number;
  throughput_per_s: number;
  latency_us: { p50: number; p90: number; p95: number; p99: number; mean: number };
  /** scheduled vs actual send time, µs */
  send_lag_us: { p50: number; p99: number; max: number };
  /** how fast errors came back (a refusal at the door is answered at once; a timeout only after waiting), µs */
  error_latency_us: { p50: number; p99: number };
  errors_by_status: Record<string, number>;
  /** the first error message seen for each status (cut to 300 characters): what the errors were, not just how many */
  first_error_by_status: Record<string, string>;
}

export class ClientStats {
  readonly latency = new LogHistogram();
  readonly lag = new LogHistogram();
  readonly errorLatency = new LogHistogram();
  readonly errorsByStatus: Record<string, number> = {};
  readonly firstErrorByStatus: Record<string, string> = {};
  sent = 0;
  answered = 0;
  errors = 0;
  skipped = 0;

  answer(ok: boolean, status: number, latencyUs: number, message?: string): void {
    this.answered++;
    if (ok) this.latency.add(latencyUs);
    else {
      this.errors++;
      this.errorLatency.add(latencyUs);
      this.errorsByStatus[status] = (this.errorsByStatus[status] ?? 0) + 1;
      if (this.firstErrorByStatus[status] === undefined) this.firstErrorByStatus[status] = (message ?? '').slice(0, 300);
    }
  }

  counters(elapsedS: number): RunCounters {
    return { sent: this.sent, answered: this.answered, errors: this.errors, skipped: this.skipped, elapsed_s: elapsedS };
  }

  /** the figures the dashboard shows next to the server's */
  figures(): LoadClientFigures {
    return {
      send_lag_us: { p50: this.lag.percentile(0.5), p99: this.lag.percentile(0.99), max: this.lag.max },
      latency_us: { p50: this.latency.percentile(0.5), p99: this.latency.percentile(0.99) },
    };
  }

  summary(elapsedS: number): LatencySummary {
    const ok = this.answered - this.errors;
    const p = (q: number) => this.latency.percentile(q);
    return {
      count: this.answered,
      ok,
      errors: this.errors,
      throughput_per_s: elapsedS > 0 ? ok / elapsedS : 0,
      latency_us: { p50: p(0.5), p90: p(0.9), p95: p(0.95), p99: p(0.99), mean: this.latency.mean },
      send_lag_us: this.figures().send_lag_us,
      error_latency_us: { p50: this.errorLatency.percentile(0.5), p99: this.errorLatency.percentile(0.99) },
      errors_by_status: { ...this.errorsByStatus },
      first_error_by_status: { ...this.firstErrorByStatus },
    };
  }
}
