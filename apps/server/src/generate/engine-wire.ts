/**
 * The messages between the iterative scheduler (main thread, hosted-engine.ts) and the step loop it runs
 * in the instance's worker thread (step-host.ts): declared once, for both sides. Plain data only (they
 * are structured-cloned across the threads).
 */
import type { GenOutcome, GenRequest, IterEvent, IterativeKnobs } from '@inferscope/core/iterative';
import type { KvBlockTables } from '@inferscope/core/kv-cache';
import type { EngineSetup } from './step-engine';

/** What the worker's program is started with. */
export interface HostInit {
  setup: EngineSetup;
  /** the scheduler's clock minus the epoch-based time both threads share (µs), so event times line up */
  clockOffsetUs: number;
}

/** Main -> worker. */
export type ToLoop =
  | { op: 'submit'; request: GenRequest }
  | { op: 'cancel'; id: string }
  | { op: 'replan'; ref: number; knobs: IterativeKnobs };

/**
 * Worker -> main: what the loop told its listener and its sinks, in the order it told them (events,
 * tokens and ends interleave exactly as a loop in the main thread would have called them), plus the
 * block tables whenever a step or a replan changed them, and the answers to replans.
 */
export type FromLoop =
  | { k: 'event'; e: IterEvent }
  | { k: 'token'; id: string; token: number; index: number }
  | { k: 'end'; id: string; outcome: GenOutcome }
  | { k: 'map'; tables: KvBlockTables }
  | { k: 'replanned'; ref: number; error: string | null };

/** The epoch-based time every thread of the process shares, in µs (each thread's own performance.now() has its own origin). */
export function sharedNowUs(): number {
  return (performance.timeOrigin + performance.now()) * 1000;
}
