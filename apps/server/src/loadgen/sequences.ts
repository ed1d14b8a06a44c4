/**
 * Load for a stateful model (a config with `sequence_batching`), as perf_analyzer sends it: every
 * request belongs to a sequence of about `--sequence-length` requests (± `--sequence-length-variation`
 * percent, drawn per sequence), the first flagged START and the last END, each sequence with its own
 * correlation id from `--sequence-id-range start[:end]` (end excluded; ids are reused in order once a
 * bounded range runs out, as perf_analyzer does). Under a concurrency step each client runs its own
 * sequences one after another; under a request rate `--num-of-sequences` sequences are open at once and
 * each request goes to the next of them in turn. Every other load (the dashboard's runs, A/B, sweeps,
 * replays) gets the same with perf_analyzer's defaults (autoSequences), so a stateful model is never sent
 * requests without a sequence, which it would refuse one by one.
 */
import { schedulerKindFor, type SchedulerChoiceInput } from '@inferscope/core/scheduler';
import type { InferCall } from './infer-call';
import { mulberry32 } from './input-generator';

export interface SequenceOptions {
  /** base length: requests per sequence (perf_analyzer's default 20) */
  length: number;
  /** percent the length may vary either way (default 20) */
  variationPct: number;
  /** first correlation id (default 1) */
  idStart: number;
  /** first id not used (exclusive); undefined = unbounded */
  idEnd?: number;
  seed: number;
}

export const SEQUENCE_DEFAULTS = { length: 20, variationPct: 20, idStart: 1, numOfSequences: 4 } as const;

interface OpenSequence {
  id: number;
  remaining: number;
  started: boolean;
}

/** The sequences of one perf step: `next(slot)` gives the sequence fields of that slot's next request. */
export class SequenceSlots {
  private readonly open = new Map<number, OpenSequence>();
  private nextId: number;
  private readonly rng: () => number;

  constructor(private readonly o: SequenceOptions, slots: number) {
    if (!Number.isSafeInteger(o.length) || o.length < 1) throw new Error(`--sequence-length must be a positive integer, got ${o.length}`);
    if (o.idEnd !== undefined && o.idEnd - o.idStart < slots) {
      // two live sequences would share a correlation id: the server would merge them into one
      throw new Error(`--sequence-id-range ${o.idStart}:${o.idEnd} has ${Math.max(0, o.idEnd - o.idStart)} ids for ${slots} sequences open at once: ids would collide`);
    }
    this.nextId = o.idStart;
    this.rng = mulberry32(o.seed);
  }

  next(slot: number): NonNullable<InferCall['sequence']> {
    let s = this.open.get(slot);
    if (!s) {
      s = { id: this.takeId(), remaining: this.drawLength(), started: false };
      this.open.set(slot, s);
    }
    const start = !s.started;
    s.started = true;
    s.remaining--;
    const end = s.remaining === 0;
    if (end) this.open.delete(slot);
    return { id: s.id, start, end };
  }

  private takeId(): number {
    const id = this.nextId++;
    if (this.o.idEnd !== undefined && this.nextId >= this.o.idEnd) this.nextId = this.o.idStart;
    return id;
  }

  /** base ± variation%, uniformly, at least 1 request */
  private drawLength(): number {
    const spread = (this.o.length * this.o.variationPct) / 100;
    return Math.max(1, Math.round(this.o.length - spread + this.rng() * 2 * spread));
  }
}

/** `--sequence-id-range start[:end]` as perf_analyzer reads it. */
export function parseSequenceIdRange(text: string): { idStart: number; idEnd?: number } {
  const [a, b, ...rest] = text.split(':');
  const id = (s: string, what: string) => {
    if (!/^\d+$/.test(s) || Number(s) < 1 || !Number.isSafeInteger(Number(s))) throw new Error(`--sequence-id-range: ${what} must be a positive integer, got '${s}'`);
    return Number(s);
  };
  if (rest.length > 0 || a === undefined) throw new Error(`--sequence-id-range must be start or start:end, got '${text}'`);
  const idStart = id(a, 'start');
  if (b === undefined || b === '') return { idStart };
  const idEnd = id(b, 'end');
  if (idEnd <= idStart) throw new Error(`--sequence-id-range: end ${idEnd} must be above start ${idStart} (end is excluded)`);
  return { idStart, idEnd };
}

/**
 * Whether a model config (JSON-shaped, as the server reports it) is a stateful model's: the sequence
 * batcher's (an iterative model's sequence is one generate request, sent without sequence fields).
 */
export const isStateful = (config: unknown): boolean =>
  typeof config === 'object' && config !== null && schedulerKindFor(config as SchedulerChoiceInput) === 'sequence';

/** A call as a target sends it, and what to do once it is answered (free its sequence for the next request). */
export interface SequencedCall {
  call: InferCall;
  done(): void;
}

/**
 * The sequences a load target adds to the calls of a stateful model that came without any, with
 * perf_analyzer's lengths. One request of a sequence is in flight at a time (perf_analyzer's serial
 * sequences): over HTTP two requests of one sequence on two sockets may reach the server in either order,
 * and the second arriving first is refused ("must specify the START flag"). A request takes the lowest
 * sequence with nothing in flight, opening one more when all are busy, so as many sequences are open as
 * requests are in flight. Ids start at a random point of a large range: two load runs on one server (two
 * dashboard tabs, a run and an A/B) must not share a correlation id, or each would restart the other's.
 */
export class AutoSequences {
  private readonly slots: SequenceSlots;
  private readonly busy = new Set<number>();
  private opened = 0;

  constructor(seed: number) {
    const idStart = 1 + Math.floor(Math.random() * 2 ** 40);
    this.slots = new SequenceSlots({ length: SEQUENCE_DEFAULTS.length, variationPct: SEQUENCE_DEFAULTS.variationPct, idStart, seed }, 1);
  }

  take(call: InferCall): SequencedCall {
    if (call.sequence) return { call, done: () => undefined };
    let slot = 0;
    while (slot < this.opened && this.busy.has(slot)) slot++;
    if (slot === this.opened) this.opened++;
    this.busy.add(slot);
    return { call: { ...call, sequence: this.slots.next(slot) }, done: () => this.busy.delete(slot) };
  }
}
