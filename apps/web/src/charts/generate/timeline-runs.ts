/**
 * The token timeline's cells as the chart draws them: per slot, runs of consecutive steps in which one
 * sequence did the same kind of work (a decode of forty steps is one bar, not forty), each with where its
 * sequence joined the slot, and the preemptions as marks of their own (a preempted cell shares its step
 * with the sequence that may take the slot at once). Pure, so the lessons and the live view draw the same.
 */
import type { TimelineCell } from '@inferscope/core/iterative';

export type RunKind = 'prefill' | 'decode' | 'held';

export interface TimelineRun {
  id: string;
  kind: RunKind;
  from: number;
  /** inclusive */
  to: number;
  tokens: number;
  /** the first step of its sequence's stay in this slot: a join at the step boundary */
  joins: boolean;
}

export interface TimelineRow {
  slot: number;
  runs: TimelineRun[];
  /** steps at which a sequence in this slot was preempted (its cache dropped) */
  preempted: { step: number; id: string }[];
  /** the sequences this slot held in the window, in order */
  ids: string[];
  cells: Record<RunKind | 'preempted', number>;
}

export interface StepWindow {
  from: number;
  to: number;
}

/** The window the cells span (the first and last step), or null when there is none. */
export function cellsWindow(cells: readonly TimelineCell[]): StepWindow | null {
  if (cells.length === 0) return null;
  let from = Infinity;
  let to = -Infinity;
  for (const c of cells) {
    from = Math.min(from, c.step);
    to = Math.max(to, c.step);
  }
  return { from, to };
}

export function timelineRows(cells: readonly TimelineCell[], rows: number, window: StepWindow): TimelineRow[] {
  const out: TimelineRow[] = Array.from({ length: rows }, (_, slot) => ({ slot, runs: [], preempted: [], ids: [], cells: { prefill: 0, decode: 0, held: 0, preempted: 0 } }));
  // last step each slot's current sequence was seen, to tell a continued stay from a new join
  const lastSeen: ({ id: string; step: number } | undefined)[] = [];
  const sorted = [...cells].sort((a, b) => a.step - b.step || a.slot - b.slot);
  for (const c of sorted) {
    const row = out[c.slot];
    if (!row || c.step < window.from || c.step > window.to) continue;
    row.cells[c.kind]++;
    if (c.kind === 'preempted') {
      row.preempted.push({ step: c.step, id: c.id });
      lastSeen[c.slot] = undefined;
      continue;
    }
    const prev = lastSeen[c.slot];
    const continues = prev !== undefined && prev.id === c.id && prev.step === c.step - 1;
    lastSeen[c.slot] = { id: c.id, step: c.step };
    const last = row.runs.at(-1);
    if (continues && last && last.id === c.id && last.kind === c.kind && last.to === c.step - 1) {
      last.to = c.step;
      last.tokens += c.tokens;
      continue;
    }
    if (!continues && row.ids.at(-1) !== c.id) row.ids.push(c.id);
    row.runs.push({ id: c.id, kind: c.kind, from: c.step, to: c.step, tokens: c.tokens, joins: !continues });
  }
  return out;
}
