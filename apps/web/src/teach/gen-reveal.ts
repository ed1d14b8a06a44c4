/**
 * How much of a generative lesson's run its picture shows (lessons 15-17): the run is simulated whole
 * (gen-run.ts; the verdicts and rows read all of it), and the picture reveals it up to the stage header's
 * simulated time. The mapping is the identity: the run starts at the playback's time 0 and one of its
 * simulated µs is one µs of the playback's clock, so the header's time is the run's own time, play
 * animates the run at the chosen speed, pause freezes it, and restart and the scrubber move it. A step is
 * shown once it has finished (its tokens exist, its block map is the one after it). Pure: the hook that
 * reads the playback store is GenDemoParts.tsx `useGenReveal`.
 */
import type { TimelineCell } from '@inferscope/core/iterative';
import type { GenRun } from './gen-run';

/** When each step ended, in step order (index 0: step 1); ascending, as the steps run one after another. */
export function stepEnds(run: Pick<GenRun, 'stepStart' | 'stepUs' | 'steps'>): number[] {
  return Array.from({ length: run.steps }, (_, i) => run.stepStart[i + 1] + run.stepUs[i + 1]);
}

/** Steps finished by `tUs` (a count: the last step shown), from `stepEnds`. */
export function stepsShownAt(ends: readonly number[], tUs: number): number {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] <= tUs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first mark after `tUs` (the header's step moves there when it is nearer than its own next event). */
export function nextMarkAfter(marks: readonly number[], tUs: number): number | undefined {
  const i = stepsShownAt(marks, tUs);
  return i < marks.length ? marks[i] : undefined;
}

export interface GenReveal {
  /** the last step shown (0: none yet), of `steps` */
  step: number;
  steps: number;
  /** when the last step shown ended (0 before the first), and when the run's last step ended */
  atUs: number;
  spanUs: number;
  /** the whole run is shown: the picture and the verdict are from the same steps */
  whole: boolean;
  /** the run's cells of the steps shown */
  cells: readonly TimelineCell[];
  /** the whole run's steps: the picture keeps its scale and fills from the left as the run plays */
  window: { from: number; to: number } | undefined;
}

/** The run as it stands `step` steps in (a count from `stepsShownAt`). */
export function revealRun(run: GenRun, ends: readonly number[], step: number): GenReveal {
  const shown = Math.max(0, Math.min(step, run.steps));
  return {
    step: shown,
    steps: run.steps,
    atUs: shown > 0 ? ends[shown - 1] : 0,
    spanUs: ends.at(-1) ?? 0,
    whole: shown >= run.steps,
    cells: shown >= run.steps ? run.cells : run.cells.filter((c) => c.step <= shown),
    window: run.steps > 0 ? { from: 1, to: run.steps } : undefined,
  };
}
