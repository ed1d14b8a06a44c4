/**
 * The gateway's side of the `generation` message (core live/generation.ts): one GenerationFeed per
 * iterative model version, fed from the bus's `iterative` events, and per client whether it holds the
 * feeds' picture. At each tick the feeds that moved read their model's block map (once, from the model
 * list: its `kv_blocks` is computed when read), every client in step gets the same deltas, and a client
 * that is new, asked to resync or was skipped while its socket was backed up gets everything kept
 * (`reset`), so a missed delta never leaves a hole in its timeline. Fed only while a client is connected
 * (the gateway's rule for frames too): a sequence already running when folding starts shows from its next
 * step (without its TTFT), and nothing stale survives the time nobody watched.
 */
import type { IterativeEvent, ModelSnapshot } from '@inferscope/core';
import type { IterEvent } from '@inferscope/core/iterative';
import { GenerationFeed, type GenerationFeedOptions, type GenerationMessage, type GenerationUpdate } from '@inferscope/core/live';

export class GenerationFeeds {
  private readonly feeds = new Map<string, GenerationFeed>();
  /** clients holding the picture (they get deltas); the others get a reset at the next tick */
  private readonly inStep = new Set<string>();

  constructor(private readonly options: Partial<GenerationFeedOptions> = {}) {}

  on(e: IterativeEvent): void {
    const key = `${e.model}:${e.version}`;
    let feed = this.feeds.get(key);
    if (!feed) this.feeds.set(key, (feed = new GenerationFeed(e.model, e.version, this.options)));
    feed.on(e.event as IterEvent);
  }

  get empty(): boolean {
    return this.feeds.size === 0;
  }

  /** A client that must start again from everything kept (new, resynced, or one a tick skipped). */
  outOfStep(client: string): void {
    this.inStep.delete(client);
  }

  /**
   * One tick: the deltas once, then per client its message (deltas, or a reset for one out of step).
   * `ready(client)` says whether its socket can take a message now; a client that cannot falls out of step.
   */
  tick(now: number, models: () => ModelSnapshot[], clients: Iterable<string>, ready: (client: string) => boolean, send: (client: string, m: GenerationMessage) => void): void {
    if (this.feeds.size === 0) return;
    const moved = [...this.feeds.values()].filter((f) => f.moved);
    if (moved.length > 0) {
      const maps = new Map(models().map((m) => [`${m.name}:${m.version}`, m.kv_blocks]));
      for (const f of moved) f.setBlocks(maps.get(`${f.model}:${f.version}`));
    }
    const deltas: GenerationUpdate[] = [];
    for (const f of this.feeds.values()) {
      const u = f.tick(now);
      if (u) deltas.push(u);
    }
    let full: GenerationUpdate[] | undefined;
    for (const id of clients) {
      if (!ready(id)) {
        this.inStep.delete(id);
        continue;
      }
      if (this.inStep.has(id)) {
        if (deltas.length > 0) send(id, { t: now, models: deltas });
        continue;
      }
      full ??= [...this.feeds.values()].map((f) => f.full());
      send(id, { t: now, models: full });
      this.inStep.add(id);
    }
  }

  /** Drops every feed (nobody watches): the next events start fresh ones. */
  clear(): void {
    this.feeds.clear();
    this.inStep.clear();
  }

  forget(client: string): void {
    this.inStep.delete(client);
  }
}
