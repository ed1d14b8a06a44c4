/**
 * The live picture of an iterative (continuous-batching) model on the wire: the gateway folds the model's
 * step events (`iterative` on the bus) into core's TokenTimeline and GenFigures here and sends each
 * client a `generation` message a few times a second, instead of forwarding every token event (a fast
 * model steps a thousand times a second; one event per token would flood the socket). A message carries
 * the timeline cells of the steps since the previous one (at most `stepsPerMessage` steps: a faster model
 * skips, and says how many), the KV block map when it changed, and one figures point per window (TTFT,
 * inter-token latency, tokens/s, KV use: GenFigures.takeWindow). A client that is new, resynced or missed
 * a message gets `reset: true` with everything kept. Cells and blocks go compactly (ids listed once).
 */
import { TokenTimeline, type TimelineCell } from '../iterative/timeline';
import { GenFigures, type GenWindow } from '../iterative/figures';
import type { IterEvent } from '../iterative/types';
import type { KvBlockMap, KvSequenceView, KvUsage } from '../kv-cache/block-allocator';

export type { GenWindow };

export const TIMELINE_KINDS: readonly TimelineCell['kind'][] = ['prefill', 'decode', 'held', 'preempted'];

/** Timeline cells on the wire: `[step, slot, kind (TIMELINE_KINDS index), tokens, id (index into ids)]`. */
export interface WireCells {
  ids: string[];
  cells: [number, number, number, number, number][];
}

/** A KV block map on the wire: each block's owner as an index into `sequences` (-1 free) and its tokens. */
export interface WireBlockMap {
  policy: KvBlockMap['policy'];
  block_tokens: number;
  owners: number[];
  tokens: number[];
  sequences: KvSequenceView[];
  usage: KvUsage;
}

export interface GenerationUpdate {
  model: string;
  version: string;
  /** replaces what the client holds for this model (a new or resynced client, one that missed a message, a reloaded model) */
  reset: boolean;
  /** slots ever used: the timeline's rows */
  rows: number;
  /** the cells of the steps after the previous message (every kept step when reset) */
  cells: WireCells;
  /** steps between the previous message and these cells left out (only the newest stepsPerMessage are sent) */
  skipped_steps: number;
  /** the block map, when it changed since the previous message (always when reset, once known) */
  kv?: WireBlockMap;
  /** figures windows closed since the previous message (every kept one when reset) */
  points: GenWindow[];
}

export interface GenerationMessage {
  t: number;
  models: GenerationUpdate[];
}

export function encodeCells(cells: readonly TimelineCell[]): WireCells {
  const ids: string[] = [];
  const index = new Map<string, number>();
  const out: WireCells['cells'] = [];
  for (const c of cells) {
    let i = index.get(c.id);
    if (i === undefined) {
      i = ids.push(c.id) - 1;
      index.set(c.id, i);
    }
    out.push([c.step, c.slot, TIMELINE_KINDS.indexOf(c.kind), c.tokens, i]);
  }
  return { ids, cells: out };
}

/** Cells back; `t` (the step's start) is not sent (the charts place cells by step), so it reads 0. */
export function decodeCells(w: WireCells): TimelineCell[] {
  return w.cells.map(([step, slot, kind, tokens, id]) => ({ step, slot, kind: TIMELINE_KINDS[kind] ?? 'held', tokens, id: w.ids[id] ?? '?', t: 0 }));
}

export function encodeBlockMap(m: KvBlockMap): WireBlockMap {
  const index = new Map(m.sequences.map((s, i) => [s.id, i]));
  return {
    policy: m.policy,
    block_tokens: m.blockTokens,
    owners: m.blocks.map((b) => (b.owner === null ? -1 : index.get(b.owner) ?? -1)),
    tokens: m.blocks.map((b) => b.tokens),
    sequences: m.sequences,
    usage: m.usage,
  };
}

export function decodeBlockMap(w: WireBlockMap): KvBlockMap {
  return {
    policy: w.policy,
    blockTokens: w.block_tokens,
    blocks: w.owners.map((o, i) => ({ owner: o < 0 ? null : w.sequences[o]?.id ?? null, tokens: w.tokens[i] ?? 0 })),
    sequences: w.sequences,
    usage: w.usage,
  };
}

export interface GenerationFeedOptions {
  /** steps of timeline kept for a new client (default 240) */
  keepSteps: number;
  /** steps of cells in one message at most (default 120) */
  stepsPerMessage: number;
  /** µs per figures point (default 1 s) */
  pointEveryUs: number;
  /** points kept for a new client (default 600: ten minutes at one a second) */
  keepPoints: number;
}

export const DEFAULT_GENERATION_FEED: GenerationFeedOptions = { keepSteps: 240, stepsPerMessage: 120, pointEveryUs: 1_000_000, keepPoints: 600 };

/** One model version's fold: fed every IterEvent, asked at each tick for what changed. */
export class GenerationFeed {
  private readonly o: GenerationFeedOptions;
  private timeline: TokenTimeline;
  private figures = new GenFigures({ lifetime: false });
  private readonly points: GenWindow[] = [];
  /** the index in `points` of the first point not sent yet */
  private pointsSent = 0;
  /** the last step whose cells went out */
  private sentStep = 0;
  private lastStep = 0;
  private windowFrom: number | null = null;
  private kv: WireBlockMap | undefined;
  private kvKey = '';
  private kvChanged = false;
  private restarted = false;
  private eventsSinceTick = 0;
  /** the last window had work (so one more, empty, point brings the lines down to zero) */
  private busyWindow = false;

  constructor(readonly model: string, readonly version: string, o: Partial<GenerationFeedOptions> = {}) {
    this.o = { ...DEFAULT_GENERATION_FEED, ...o };
    this.timeline = new TokenTimeline(this.o.keepSteps);
  }

  readonly on = (e: IterEvent): void => {
    if (e.type === 'step_started') {
      // a reloaded model's scheduler counts its steps from 1 again: its picture starts afresh
      if (e.step <= this.lastStep) this.restart();
      this.lastStep = e.step;
    }
    this.windowFrom ??= e.t;
    this.timeline.on(e);
    this.figures.on(e);
    this.eventsSinceTick++;
  };

  /** Events since the previous tick: the gateway reads the block map only for a model that moved. */
  get moved(): boolean {
    return this.eventsSinceTick > 0;
  }

  /** The model's block map now (read by the gateway from its scheduler); kept and sent when it changed. */
  setBlocks(map: KvBlockMap | undefined): void {
    if (!map) return;
    const wire = encodeBlockMap(map);
    const key = `${wire.owners.join(',')}|${wire.tokens.join(',')}|${wire.usage.reservedBlocks}`;
    if (key === this.kvKey) return;
    this.kvKey = key;
    this.kv = wire;
    this.kvChanged = true;
  }

  /** Closes a figures window when one has passed, and returns what changed since the previous tick (null: nothing). */
  tick(now: number): GenerationUpdate | null {
    this.closeWindows(now);
    this.eventsSinceTick = 0;
    if (this.restarted) {
      this.restarted = false;
      return this.full();
    }
    const all = this.timeline.view();
    let from = all.length;
    while (from > 0 && all[from - 1]!.step > this.sentStep) from--;
    const fresh = all.slice(from);
    const newest = fresh.at(-1)?.step ?? this.sentStep;
    const firstKept = newest - this.o.stepsPerMessage + 1;
    const kept = fresh.filter((c) => c.step >= firstKept);
    const skipped = fresh.length > 0 ? Math.max(0, firstKept - this.sentStep - 1) : 0;
    const points = this.points.slice(this.pointsSent);
    const kv = this.kvChanged ? this.kv : undefined;
    if (kept.length === 0 && points.length === 0 && !kv) return null;
    this.sentStep = newest;
    this.pointsSent = this.points.length;
    this.kvChanged = false;
    return { model: this.model, version: this.version, reset: false, rows: this.timeline.rows, cells: encodeCells(kept), skipped_steps: skipped, ...(kv ? { kv } : {}), points };
  }

  /** Everything kept, for a client that starts (or starts again) now. */
  full(): GenerationUpdate {
    return {
      model: this.model, version: this.version, reset: true, rows: this.timeline.rows, cells: encodeCells(this.timeline.view()), skipped_steps: 0,
      ...(this.kv ? { kv: this.kv } : {}), points: [...this.points],
    };
  }

  private closeWindows(now: number): void {
    if (this.windowFrom === null || now - this.windowFrom < this.o.pointEveryUs) return;
    const w = this.figures.takeWindow(now);
    this.windowFrom = now;
    const busy = w.steps > 0 || w.outputTokens > 0 || w.preemptions > 0;
    if (busy || this.busyWindow) {
      this.points.push(w);
      const over = this.points.length - this.o.keepPoints;
      if (over > 0) {
        this.points.splice(0, over);
        this.pointsSent = Math.max(0, this.pointsSent - over);
      }
    }
    this.busyWindow = busy;
  }

  private restart(): void {
    this.timeline = new TokenTimeline(this.o.keepSteps);
    this.figures = new GenFigures({ lifetime: false });
    this.sentStep = 0;
    this.kvKey = '';
    this.restarted = true;
  }
}
