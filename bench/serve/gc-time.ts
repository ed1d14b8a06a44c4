import { PerformanceObserver } from 'node:perf_hooks';

/**
 * Time this process has spent in garbage collection pauses so far, and how many pauses, as reported by
 * 'gc' performance entries (scavenges and mark-compacts alike). Entries arrive a turn after the pause, so
 * `read` yields once before it answers. Both sides of a floor comparison run in one process, one heap:
 * the difference in pauses per request is what one side's allocations cost the other nothing.
 */
export function gcMeter(): { read(): Promise<{ pauses: number; ms: number }>; close(): void } {
  let pauses = 0;
  let ms = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      pauses++;
      ms += e.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    async read() {
      await new Promise((resolve) => setImmediate(resolve));
      return { pauses, ms };
    },
    close: () => observer.disconnect(),
  };
}
