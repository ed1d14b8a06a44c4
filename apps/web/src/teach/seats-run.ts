/**
 * The "conversation keeps its seat" lesson's runs: core's simulator with a stateful model (two slots on one
 * instance) and a few conversations, one of them abandoned after its first requests, through the sequence
 * batcher the server runs. From the run's `sequence.slots` events it reads the picture (who held which
 * slot when, who waited in the backlog when) and the figures the verdict is computed from.
 */
import { simulate, sequenceArrivals, type SequenceTraffic } from '@inferscope/core/sim';
import type { SchedulerEvent, SequenceSlotsEvent } from '@inferscope/core';

export type Strategy = 'direct' | 'oldest';
export const STRATEGIES: Strategy[] = ['direct', 'oldest'];
/** the knob: max_sequence_idle_microseconds */
export const IDLE_CHOICES_US = [5_000, 20_000, 80_000];

/** two slots, eight conversations 1.5 ms apart; the first (id 1) goes quiet after its third request */
export const SEATS_TRAFFIC: SequenceTraffic = { count: 8, length: { min: 4, max: 4 }, start_every_us: 1500, step_gap_us: 3000, first_id: 1, abandoned: [0] };
const SEED = 1;
/** modelled cost of the small stateful model (no calibration exists for it): per batch + per item */
const COST = { fixed_us: 600, per_item_us: 150 };

export interface Hold { id: string; from: number; to: number }
export interface SeatsRun {
  strategy: Strategy;
  idleUs: number;
  /** per slot (`instance#slot`), who held it from when to when */
  slots: { name: string; holds: Hold[] }[];
  /** per conversation that waited for a slot: from its START to when it got one */
  backlog: Hold[];
  /** all backlog waits summed */
  backlogWaitUs: number;
  /** how long the abandoned conversation held its slot after its last request */
  idleHeldUs: number;
  /** null requests padding empty slots (the direct strategy's cost) and batches run */
  nulls: number;
  batches: number;
  /** when the last request was answered */
  endUs: number;
  /** requests sent and answered */
  sent: number;
  answered: number;
}

export function seatsConfig(strategy: Strategy, idleUs: number) {
  return {
    name: 'chat_state', max_batch_size: 2, instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    sequence_batching: { max_sequence_idle_microseconds: idleUs, ...(strategy === 'oldest' ? { oldest: { max_candidate_sequences: 2 } } : { direct: {} }) },
  };
}

const cache = new Map<string, SeatsRun>();

/** a run, cached per setting (the page asks for the same six again as the knobs move) */
export function runSeats(strategy: Strategy, idleUs: number): SeatsRun {
  const key = `${strategy}/${idleUs}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const run = simulateSeats(strategy, idleUs);
  cache.set(key, run);
  return run;
}

/** a fresh run (no cache) */
export function simulateSeats(strategy: Strategy, idleUs: number): SeatsRun {
  const { events } = simulate({
    scenario: { name: 'conversations', seed: SEED, phases: [{ type: 'idle', duration_s: 0.001 }] },
    configs: seatsConfig(strategy, idleUs), sequences: SEATS_TRAFFIC, seed: SEED, cost: COST,
  });
  return readRun(strategy, idleUs, events);
}

function readRun(strategy: Strategy, idleUs: number, events: SchedulerEvent[]): SeatsRun {
  const arrivals = sequenceArrivals(SEATS_TRAFFIC, SEED);
  const views = events.filter((e): e is SequenceSlotsEvent => e.type === 'sequence.slots');
  const slots = new Map<string, { holds: Hold[]; open?: Hold }>();
  const waiting = new Map<string, Hold>();
  const backlog: Hold[] = [];
  for (const v of views) {
    for (const inst of v.view.instances) for (const s of inst.slots) {
      const name = `${inst.instance}#${s.slot}`;
      const lane = slots.get(name) ?? { holds: [] };
      slots.set(name, lane);
      const holder = s.sequence?.id;
      if (lane.open && lane.open.id !== holder) {
        lane.open.to = v.t;
        lane.open = undefined;
      }
      if (holder !== undefined && !lane.open) {
        lane.open = { id: holder, from: v.t, to: Infinity };
        lane.holds.push(lane.open);
      }
    }
    const now = new Set(v.view.backlog.map((b) => b.sequence.id));
    for (const [id, h] of waiting) if (!now.has(id)) {
      h.to = v.t;
      waiting.delete(id);
    }
    for (const id of now) if (!waiting.has(id)) {
      const h = { id, from: startOf(arrivals, id), to: Infinity };
      waiting.set(id, h);
      backlog.push(h);
    }
  }
  const completed = events.filter((e) => e.type === 'request.completed');
  const endUs = Math.max(0, ...completed.map((e) => e.t));
  for (const lane of slots.values()) if (lane.open) lane.open.to = endUs;
  for (const h of waiting.values()) h.to = endUs;
  const sizes = events.flatMap((e) => (e.type === 'batch.completed' ? [e.size] : []));
  const abandonedId = String((SEATS_TRAFFIC.first_id ?? 1) + (SEATS_TRAFFIC.abandoned?.[0] ?? 0));
  const lastOfAbandoned = Math.max(...arrivals.filter((a) => String(a.sequence.id) === abandonedId).map((a) => a.t_us));
  const abandonedHold = [...slots.values()].flatMap((l) => l.holds).find((h) => h.id === abandonedId);
  return {
    strategy, idleUs,
    slots: [...slots].map(([name, l]) => ({ name, holds: l.holds })),
    backlog,
    backlogWaitUs: backlog.reduce((n, h) => n + (h.to - h.from), 0),
    idleHeldUs: abandonedHold ? abandonedHold.to - lastOfAbandoned : 0,
    nulls: sizes.reduce((a, b) => a + b, 0) - completed.length,
    batches: sizes.length,
    endUs,
    sent: arrivals.length,
    answered: completed.length,
  };
}

/** the figures the verdict and its claim read, from the rows of the table */
export function seatsFigures(rows: SeatsRun[], strategy: Strategy, idleUs: number) {
  const same = rows.filter((r) => r.strategy === strategy).sort((a, b) => a.idleUs - b.idleUs);
  const at = (s: Strategy) => rows.find((r) => r.strategy === s && r.idleUs === idleUs)!;
  const now = at(strategy);
  return {
    now, short: same[0]!, long: same[same.length - 1]!,
    figures: { waitShort: same[0]!.backlogWaitUs, waitLong: same[same.length - 1]!.backlogWaitUs, nullsDirect: at('direct').nulls, nullsOldest: at('oldest').nulls },
  };
}

function startOf(arrivals: ReturnType<typeof sequenceArrivals>, id: string): number {
  return arrivals.find((a) => String(a.sequence.id) === id && a.sequence.start)?.t_us ?? 0;
}
