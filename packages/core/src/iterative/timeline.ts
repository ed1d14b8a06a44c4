/**
 * The token timeline, folded from a run's events: one row per slot (a place in the batch), one cell per
 * step. A sequence takes the lowest free slot when it joins and gives it back when it is answered or
 * preempted, so joins and leaves show at step boundaries; a cell is the work its sequence did in that
 * step (prefill, with how many tokens, or decode), `held` when it kept its slot without working (a
 * finished member padding a request-level batch, or a sequence the step's token budget left out), and a
 * preemption is a cell of its own at the step where it happened. Keeps the last `maxSteps` steps.
 */
import type { IterEvent } from './types';

export interface TimelineCell {
  step: number;
  /** µs, the step's start */
  t: number;
  slot: number;
  id: string;
  kind: 'prefill' | 'decode' | 'held' | 'preempted';
  /** new tokens fed in this step (0 when held or preempted) */
  tokens: number;
}

export class TokenTimeline {
  /** slot -> the sequence in it */
  private readonly slots: (string | null)[] = [];
  private readonly cells: TimelineCell[] = [];
  private readonly pending: TimelineCell[] = [];

  constructor(private readonly maxSteps = 500) {}

  readonly on = (e: IterEvent): void => {
    if (e.type === 'seq_preempted') {
      const slot = this.leave(e.id);
      if (slot >= 0) this.pending.push({ step: e.step, t: e.t, slot, id: e.id, kind: 'preempted', tokens: 0 });
    } else if (e.type === 'seq_finished') {
      this.leave(e.id);
    } else if (e.type === 'step_started') {
      for (const id of e.joined) this.join(id);
      // a fold started mid-run (a dashboard that connects while traffic flows) never saw these join: they
      // take a slot at their first step seen, instead of working unseen until they leave
      for (const r of e.rows) if (!this.slots.includes(r.id)) this.join(r.id);
      const worked = new Map(e.rows.map((r) => [r.id, r]));
      this.cells.push(...this.pending.splice(0));
      this.slots.forEach((id, slot) => {
        if (id === null) return;
        const row = worked.get(id);
        this.cells.push({ step: e.step, t: e.t, slot, id, kind: row ? row.kind : 'held', tokens: row ? row.tokens : 0 });
      });
      const oldest = e.step - this.maxSteps;
      let drop = 0;
      while (drop < this.cells.length && this.cells[drop]!.step <= oldest) drop++;
      if (drop) this.cells.splice(0, drop);
    }
  };

  /** The cells kept, in step order then slot order. */
  view(): readonly TimelineCell[] {
    return this.cells;
  }

  /** Slots ever used: the timeline's rows. */
  get rows(): number {
    return this.slots.length;
  }

  private join(id: string): void {
    const free = this.slots.indexOf(null);
    if (free >= 0) this.slots[free] = id;
    else this.slots.push(id);
  }

  private leave(id: string): number {
    const slot = this.slots.indexOf(id);
    if (slot >= 0) this.slots[slot] = null;
    return slot;
  }
}
