/**
 * The last minutes of per-second stats and the recent config changes, kept for clients that connect
 * later (a reload must not start with empty charts). Bounded twice: by count (300 entries = 5 minutes at
 * one a second) and by the bytes of their JSON, so many models with wide batch-size histograms cannot make
 * every snapshot, and every viewer's send buffer, grow without limit.
 */
import type { ConfigChangedEvent, LiveHistory, StatsMessage } from '@inferscope/core';

export interface StatsHistoryOptions {
  maxEntries: number;
  maxBytes: number;
  maxConfigChanges: number;
}

export const DEFAULT_HISTORY: StatsHistoryOptions = { maxEntries: 300, maxBytes: 1024 * 1024, maxConfigChanges: 100 };

export class StatsHistory {
  private readonly entries: { stats: StatsMessage; bytes: number }[] = [];
  private readonly changes: { event: ConfigChangedEvent; bytes: number }[] = [];
  private bytes = 0;
  readonly options: StatsHistoryOptions;

  constructor(options: Partial<StatsHistoryOptions> = {}) {
    this.options = { ...DEFAULT_HISTORY, ...options };
  }

  /** Keeps one stats message (without load and sweep progress: only the latest progress matters). */
  push(s: StatsMessage): void {
    const { load: _load, sweep: _sweep, ...kept } = s;
    const bytes = JSON.stringify(kept).length;
    this.entries.push({ stats: kept, bytes });
    this.bytes += bytes;
    while (this.entries.length > this.options.maxEntries || (this.bytes > this.options.maxBytes && this.entries.length > 0)) {
      this.bytes -= this.entries.shift()!.bytes;
    }
  }

  pushConfigChange(e: ConfigChangedEvent): void {
    const bytes = JSON.stringify(e).length;
    this.changes.push({ event: e, bytes });
    this.bytes += bytes;
    while (this.changes.length > this.options.maxConfigChanges || (this.bytes > this.options.maxBytes && this.changes.length > 0)) {
      this.bytes -= this.changes.shift()!.bytes;
    }
  }

  /** JSON bytes held (what a snapshot's history costs to send). */
  get sizeBytes(): number {
    return this.bytes;
  }

  snapshot(): LiveHistory {
    return { stats: this.entries.map((e) => e.stats), config_changes: this.changes.map((c) => c.event) };
  }
}
