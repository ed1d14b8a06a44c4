/**
 * Teaching mode's side of the `generation` message: the generative model's logged step events, up to the
 * time the playback shows, folded by core's GenerationFeed (the gateway's fold, the same options but
 * its window in simulated time) and handed to the store as the socket hands the server's messages
 * (live.applyGeneration), so the state view's timeline and block map and the performance view's charts
 * cannot tell the two apart. A seek back makes a new one and replays the log from the start.
 */
import { GenerationFeed, type GenerationMessage } from '@inferscope/core/live';
import type { TeachingGenerator } from './gen-serve';
import { SIM_VERSION } from './sim-types';

export class GenReplay {
  private readonly feed: GenerationFeed;
  private cursor = 0;
  private sentFull = false;

  /** `pointEveryUs`: one figures point per this much simulated time (the server's is a second of wall time) */
  constructor(private readonly gen: TeachingGenerator, pointEveryUs: number) {
    this.feed = new GenerationFeed(gen.model, SIM_VERSION, { pointEveryUs });
  }

  /** Folds the logged events up to time t. */
  upTo(t: number): void {
    const events = this.gen.events;
    while (this.cursor < events.length && events[this.cursor]!.t <= t) this.feed.on(events[this.cursor++]!);
  }

  /** The message a tick at `t` sends (null: nothing new); the first one carries everything (reset), as a new client's. */
  tick(t: number): GenerationMessage | null {
    this.upTo(t);
    this.feed.setBlocks(this.gen.blocksAt(t));
    const update = this.feed.tick(t);
    if (!this.sentFull) {
      if (!update) return null;
      this.sentFull = true;
      return { t, models: [this.feed.full()] };
    }
    return update ? { t, models: [update] } : null;
  }
}
