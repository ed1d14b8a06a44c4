/**
 * What the dashboard draws of a sequence batcher (`SequenceView`, declared in events.ts with the event that
 * carries it): each instance's slots with the correlation id holding each (or free), the backlog of ids
 * waiting for a slot, and the implicit state live sequences hold.
 *
 * Why a view of its own (and not the whole snapshot): it travels in the snapshot on connect AND as a
 * `sequence.slots` event whenever it changes, so it holds only what changes when a sequence binds, leaves
 * or joins the backlog (not per-request counters), and the batcher sends it only when it differs.
 */
import type { CorrelationIdView, SequenceView } from '../../events';

export type { CorrelationIdView, SequenceSlotView, SequenceView } from '../../events';

/** the backlog ids a view lists: enough to draw, bounded so a flood of STARTs costs each change little */
export const SEQUENCE_VIEW_BACKLOG_MAX = 64;

/** A stable text of a view, to send it only when it changed. */
export function sequenceViewKey(v: SequenceView): string {
  return [
    v.strategy,
    v.instances.map((i) => `${i.instance}:${i.slots.map((s) => id(s.sequence)).join(',')}`).join(';'),
    `${v.backlog_total}:${v.backlog.map((b) => `${id(b.sequence)}x${b.requests}`).join(',')}`,
    `${v.state_memory.sequences}/${v.state_memory.bytes}`,
  ].join('|');
}

// a module function, not a closure made per key (ARCHITECTURE.md, hot paths)
function id(c: CorrelationIdView | null): string {
  return c ? `${c.type[0]}${c.id}` : '-';
}
