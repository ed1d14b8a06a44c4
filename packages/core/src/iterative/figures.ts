/**
 * The figures of a generative run, folded from its events: genai-perf's per-request figures (time to
 * first token, inter-token latency, request latency, output tokens/s) and the scheduler's per-step ones
 * (slots used and padded, tokens per step, KV blocks used/free, preemptions). Times are the events'
 * clock (µs). Percentiles are THE percentile (util/percentile.ts).
 */
import { percentilesOf, type Percentiles } from '../util/percentile';
import type { IterEvent } from './types';

/** A figure's p50 / p90 / p99 / max (util/percentile.ts). */
export type Spread = Percentiles;

export interface GenSummary {
  /** requests answered with all their tokens */
  completed: number;
  cancelled: number;
  failed: number;
  rejected: number;
  outputTokens: number;
  /** µs from the first request's arrival to the last answer */
  spanUs: number;
  outputTokensPerSec: number;
  ttftUs: Spread;
  /** gaps between a request's consecutive tokens */
  interTokenUs: Spread;
  requestLatencyUs: Spread;
  steps: number;
  /** rows in steps: sequence-steps that did work */
  busySlots: number;
  /** slot-steps held by finished members of a request-level batch */
  padSlots: number;
  /** new tokens per step (prefill and decode) */
  tokensPerStep: Spread;
  preemptions: number;
  peakBlocksUsed: number;
  /** KV blocks used after each step, with its time: the block chart */
  kvTimeline: { t: number; usedBlocks: number; freeBlocks: number }[];
}

/**
 * The figures of the events since the previous window was taken (`takeWindow`): what a live chart plots
 * once a second. Per token, not per finished request: a first token counts its TTFT when it arrives and
 * each later one its gap, so a live TTFT spike shows while its requests are still generating.
 */
export interface GenWindow {
  /** µs: the window's end and its length */
  t: number;
  spanUs: number;
  outputTokens: number;
  outputTokensPerSec: number;
  /** of the first tokens in the window (null: none) */
  ttftUs: Spread | null;
  /** of the gaps between a sequence's tokens in the window (null: none) */
  interTokenUs: Spread | null;
  steps: number;
  preemptions: number;
  completed: number;
  /** KV blocks after the window's last step (null: no step yet) */
  kv: { usedBlocks: number; totalBlocks: number } | null;
  /** sequences generating or waiting at the window's end */
  openSequences: number;
}

export interface GenFiguresOptions {
  /**
   * Keep every finished sequence's samples and every step's KV point for `summary()` (default true). A
   * server's live fold, which only takes windows, turns it off so a long run keeps nothing per token.
   */
  lifetime?: boolean;
}

interface Seq {
  queuedAt: number;
  tokenTimes: number[];
  endedAt?: number;
}

interface WindowSamples {
  ttft: number[];
  gaps: number[];
  tokens: number;
  steps: number;
  preemptions: number;
  completed: number;
}

const freshWindow = (): WindowSamples => ({ ttft: [], gaps: [], tokens: 0, steps: 0, preemptions: 0, completed: 0 });

export class GenFigures {
  private readonly seqs = new Map<string, Seq>();
  private firstAt = Infinity;
  private lastAt = -Infinity;
  private readonly counts = { completed: 0, cancelled: 0, failed: 0, rejected: 0, steps: 0, busySlots: 0, padSlots: 0, preemptions: 0 };
  private readonly stepTokens: number[] = [];
  private readonly kvTimeline: GenSummary['kvTimeline'] = [];
  private peak = 0;
  /** the finished sequences' ttft, gaps and latency, kept as they end so a long run does not keep them all */
  private readonly ttft: number[] = [];
  private readonly gaps: number[] = [];
  private readonly latency: number[] = [];
  private readonly lifetime: boolean;
  private win = freshWindow();
  private winStart: number | null = null;
  private lastKv: GenWindow['kv'] = null;

  constructor(o: GenFiguresOptions = {}) {
    this.lifetime = o.lifetime ?? true;
  }

  /** The listener to give the step loop. */
  readonly on = (e: IterEvent): void => {
    this.winStart ??= e.t;
    switch (e.type) {
      case 'seq_queued':
        this.seqs.set(e.id, { queuedAt: e.t, tokenTimes: [] });
        this.firstAt = Math.min(this.firstAt, e.t);
        break;
      case 'seq_rejected':
        this.counts.rejected++;
        break;
      case 'step_started':
        this.counts.steps++;
        this.counts.busySlots += e.rows.length;
        this.counts.padSlots += e.padSlots;
        if (this.lifetime) this.stepTokens.push(e.tokens);
        this.win.steps++;
        break;
      case 'seq_preempted':
        this.counts.preemptions++;
        this.win.preemptions++;
        break;
      case 'token': {
        let s = this.seqs.get(e.id);
        // queued before the fold started (a live view that connected mid-run): its tokens and gaps count
        // from here; its first token seen is not its first, so no TTFT (queuedAt NaN)
        if (!s) this.seqs.set(e.id, (s = { queuedAt: NaN, tokenTimes: [] }));
        const prev = s.tokenTimes.at(-1);
        if (prev === undefined) {
          if (!Number.isNaN(s.queuedAt)) this.win.ttft.push(e.t - s.queuedAt);
        }
        else this.win.gaps.push(e.t - prev);
        this.win.tokens++;
        s.tokenTimes.push(e.t);
        break;
      }
      case 'step_finished':
        this.peak = Math.max(this.peak, e.kv.usedBlocks);
        if (this.lifetime) this.kvTimeline.push({ t: e.t, usedBlocks: e.kv.usedBlocks, freeBlocks: e.kv.freeBlocks });
        this.lastKv = { usedBlocks: e.kv.usedBlocks, totalBlocks: e.kv.totalBlocks };
        break;
      case 'idle':
        this.lastKv = { usedBlocks: e.kv.usedBlocks, totalBlocks: e.kv.totalBlocks };
        break;
      case 'seq_finished': {
        const s = this.seqs.get(e.id);
        this.seqs.delete(e.id);
        this.lastAt = Math.max(this.lastAt, e.t);
        if (e.outcome !== 'done') {
          this.counts[e.outcome]++;
          break;
        }
        this.counts.completed++;
        this.win.completed++;
        if (!s || s.tokenTimes.length === 0 || !this.lifetime || Number.isNaN(s.queuedAt)) break;
        this.ttft.push(s.tokenTimes[0]! - s.queuedAt);
        for (let i = 1; i < s.tokenTimes.length; i++) this.gaps.push(s.tokenTimes[i]! - s.tokenTimes[i - 1]!);
        this.latency.push(e.t - s.queuedAt);
        break;
      }
    }
  };

  /** The window since the previous call (or the first event) up to `now`, and a new window from `now`. */
  takeWindow(now: number): GenWindow {
    const w = this.win;
    const spanUs = Math.max(0, now - (this.winStart ?? now));
    this.win = freshWindow();
    this.winStart = now;
    return {
      t: now,
      spanUs,
      outputTokens: w.tokens,
      outputTokensPerSec: spanUs > 0 ? (w.tokens * 1e6) / spanUs : 0,
      ttftUs: w.ttft.length > 0 ? percentilesOf(w.ttft) : null,
      interTokenUs: w.gaps.length > 0 ? percentilesOf(w.gaps) : null,
      steps: w.steps,
      preemptions: w.preemptions,
      completed: w.completed,
      kv: this.lastKv,
      openSequences: this.seqs.size,
    };
  }

  summary(): GenSummary {
    const outputTokens = this.ttft.length + this.gaps.length;
    const spanUs = this.lastAt > this.firstAt ? this.lastAt - this.firstAt : 0;
    return {
      ...this.counts,
      outputTokens,
      spanUs,
      outputTokensPerSec: spanUs > 0 ? (outputTokens * 1e6) / spanUs : 0,
      ttftUs: percentilesOf(this.ttft),
      interTokenUs: percentilesOf(this.gaps),
      requestLatencyUs: percentilesOf(this.latency),
      tokensPerStep: percentilesOf(this.stepTokens),
      peakBlocksUsed: this.peak,
      kvTimeline: this.kvTimeline,
    };
  }
}

