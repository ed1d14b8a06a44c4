/**
 * The server's own event-loop delay (node:perf_hooks monitorEventLoopDelay): how late a timer due on the
 * main thread actually ran. Every HTTP parse, scheduler decision and live frame of the server runs on
 * that loop, so a stall there delays batches whatever max_queue_delay says; publishing it lets a stall be
 * seen for what it is (in Prometheus and the dashboard's header) instead of read as scheduler latency.
 *
 * The monitor samples every RESOLUTION_MS; figures are those of the last complete WINDOW_MS window (so a
 * scrape and the dashboard show recent behaviour, not the whole uptime); _sum and _count are cumulative.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { EventLoopFigures } from '@inferscope/core';
import type { MetricFamily } from './exposition';

// Node's default. Each sample is a wake-up of the main thread: at 2 ms an idle server woke 500 times a
// second and spent ~2.5% of a core on it (bench/serve/README.md, "An idle server"). A stall longer than
// the resolution is always seen; a shorter one is seen in proportion to its length.
const RESOLUTION_MS = 10;
const WINDOW_MS = 5_000;

export class EventLoopDelay {
  private readonly h: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private readonly timer: ReturnType<typeof setInterval>;
  /** undefined until the first window closed: no figure is better than a made-up zero */
  private last: EventLoopFigures | undefined;
  private sumS = 0;
  private count = 0;

  constructor() {
    this.h.enable();
    this.timer = setInterval(() => this.closeWindow(), WINDOW_MS);
    this.timer.unref();
  }

  /** ends the current window: its figures become the published ones (every WINDOW_MS; tests call it) */
  closeWindow(): void {
    const h = this.h;
    if (h.count > 0) {
      this.last = { p50_ms: h.percentile(50) / 1e6, p99_ms: h.percentile(99) / 1e6, max_ms: h.max / 1e6, window_s: WINDOW_MS / 1000 };
      this.sumS += (h.mean * h.count) / 1e9;
      this.count += h.count;
    }
    h.reset();
  }

  /** samples recorded in the current window. Node records a sample from the second wake-up on (each is the
   *  time since the previous one), so a stall is seen only once the monitor has woken twice */
  samplesInWindow(): number {
    return this.h.count;
  }

  /** the last complete window's figures (for the live stats) */
  figures(): EventLoopFigures | undefined {
    return this.last;
  }

  families(): MetricFamily[] {
    // before the first window: NaN quantiles, the Prometheus convention for a summary with no observations
    const f = this.last ?? { p50_ms: NaN, p99_ms: NaN, max_ms: NaN };
    return [
      {
        name: 'inferscope_event_loop_delay_seconds',
        help: `How late timers ran on the server's main event loop (monitorEventLoopDelay, ${RESOLUTION_MS} ms sampling), quantiles over the last ${WINDOW_MS / 1000} s`,
        type: 'summary',
        samples: [
          { labels: { quantile: '0.5' }, value: f.p50_ms / 1e3 },
          { labels: { quantile: '0.99' }, value: f.p99_ms / 1e3 },
          { labels: { quantile: '1' }, value: f.max_ms / 1e3 },
        ],
        sum: this.sumS,
        count: this.count,
      },
    ];
  }

  close(): void {
    clearInterval(this.timer);
    this.h.disable();
  }
}
