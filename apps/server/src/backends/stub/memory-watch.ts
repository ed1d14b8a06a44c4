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
import { readdirSync, readFileSync } from 'node:fs';
import { processRssBytes } from './proc-memory';

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

/** VmRSS of `pid` plus that of every descendant; undefined when `pid` is gone. */
export function treeRssBytes(pid: number): number | undefined {
  const own = processRssBytes(pid);
  if (own === undefined) return undefined;
  let sum = own;
  for (const child of descendants(pid)) sum += processRssBytes(child) ?? 0;
  return sum;
}

/** Children of every thread of `pid` (a thread's fork is its child, not the main thread's), recursively. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>([pid]);
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      let text = '';
      try {
        text = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const c of text.split(' ')) {
        const n = Number(c);
        if (c === '' || !Number.isInteger(n) || seen.has(n)) continue;
        seen.add(n);
        out.push(n);
        queue.push(n);
      }
    }
  }
  return out;
}
