/**
 * The streaming lesson's reading of a generate_stream answer: core's reader (shared with the server's perf
 * client), and the timings the page shows. Pure; the clock is passed in.
 */
import type { TokenArrival } from '@inferscope/core/util';

export { readTokenStream, splitEvents, type TokenArrival } from '@inferscope/core/util';

export interface StreamTimings {
  tokens: number;
  firstMs: number | undefined;
  totalMs: number;
  /** mean gap between consecutive tokens */
  gapMs: number | undefined;
}

export function streamTimings(tokens: readonly TokenArrival[], totalMs: number): StreamTimings {
  const first = tokens[0]?.atMs;
  const gapMs = tokens.length > 1 ? (tokens[tokens.length - 1]!.atMs - tokens[0]!.atMs) / (tokens.length - 1) : undefined;
  return { tokens: tokens.length, firstMs: first, totalMs, gapMs };
}
