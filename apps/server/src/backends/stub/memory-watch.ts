/**
 * The memory budget held against stub processes while they run, not only when they load: a model's
 * execute() can allocate without bound, and the server would otherwise learn of it from the kernel's OOM
 * killer (which may pick the server). Every WATCH_INTERVAL_MS one timer samples the resident memory of
 * each watched stub and everything it started (its descendants: a model that forks counts its children),
 * reports the figure to the stub's owner, and calls `exceeded` once it passes the stub's share.
 *
 * Resident memory counts pages shared with other processes (libraries, a forked child's copy-on-write
 * pages) in each of them, so the figure errs on the high side, the safe side for a budget.
 */
import { treeRssBytes } from './proc-memory';

export const WATCH_INTERVAL_MS = 200;

export interface MemoryWatch {
  pid: number;
  /** the most this stub may hold now, in bytes (its reservation plus what is free of the budget) */
  limit(): number;
  /** each sample, under the limit */
  sample(bytes: number): void;
  /** the first sample over the limit; the watch ends */
  exceeded(bytes: number, limit: number): void;
}

const watches = new Set<MemoryWatch>();
let timer: ReturnType<typeof setInterval> | undefined;

/** Starts watching; returns the function that stops it. */
export function watchMemory(w: MemoryWatch): () => void {
  watches.add(w);
  if (!timer) {
    timer = setInterval(tick, WATCH_INTERVAL_MS);
    timer.unref();
  }
  return () => unwatch(w);
}

function unwatch(w: MemoryWatch): void {
  watches.delete(w);
  if (watches.size === 0 && timer) {
    clearInterval(timer);
    timer = undefined;
  }
}

function tick(): void {
  for (const w of [...watches]) {
    const bytes = treeRssBytes(w.pid);
    if (bytes === undefined) continue; // gone: its exit ends the watch
    const limit = w.limit();
    if (bytes > limit) {
      unwatch(w);
      w.exceeded(bytes, limit);
    } else {
      w.sample(bytes);
    }
  }
}
