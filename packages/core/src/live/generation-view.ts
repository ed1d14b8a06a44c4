/**
 * The receiving end of the `generation` message (generation.ts): one model's token timeline cells, slot
 * rows, KV block map and figures points as the dashboard holds them, bounded (the newest `keepSteps`
 * steps, the newest `keepPoints` points). A reset replaces everything; a delta appends.
 */
import type { TimelineCell } from '../iterative/timeline';
import type { GenWindow } from '../iterative/figures';
import type { KvBlockMap } from '../kv-cache/block-allocator';
import { decodeBlockMap, decodeCells, DEFAULT_GENERATION_FEED, type GenerationUpdate } from './generation';

export class GenerationView {
  rows = 0;
  cells: TimelineCell[] = [];
  kv: KvBlockMap | undefined;
  points: GenWindow[] = [];
  /** steps the server left out of the messages (a model faster than the messages) */
  skippedSteps = 0;
  /** moves at every update applied */
  rev = 0;

  constructor(
    private readonly keepSteps = DEFAULT_GENERATION_FEED.keepSteps,
    private readonly keepPoints = DEFAULT_GENERATION_FEED.keepPoints,
  ) {}

  apply(u: GenerationUpdate): void {
    if (u.reset) {
      this.cells = [];
      this.points = [];
      this.kv = undefined;
      this.skippedSteps = 0;
    }
    this.rows = u.rows;
    this.skippedSteps += u.skipped_steps;
    const cells = decodeCells(u.cells);
    if (cells.length > 0) {
      this.cells = this.cells.concat(cells);
      const oldest = cells.at(-1)!.step - this.keepSteps;
      const drop = this.cells.findIndex((c) => c.step > oldest);
      if (drop > 0) this.cells.splice(0, drop);
    }
    if (u.points.length > 0) {
      this.points = this.points.concat(u.points);
      if (this.points.length > this.keepPoints) this.points.splice(0, this.points.length - this.keepPoints);
    }
    if (u.kv) this.kv = decodeBlockMap(u.kv);
    this.rev++;
  }

  /** The newest step held (0: none). */
  get lastStep(): number {
    return this.cells.at(-1)?.step ?? 0;
  }
}
