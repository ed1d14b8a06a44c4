/**
 * The bench's generative workload: prompts of a range of bytes, outputs mostly short and a share long
 * (mixed output lengths, where request-level batching pads most). One home for run.ts and
 * decode-split.ts.
 */
import { Rng } from '@inferscope/core/load';
import { promptOfLength, type GenAsk } from '../../apps/server/src/clients/generate/gen-workload';

export interface BenchWorkload {
  count: number;
  seed: number;
  prompt: [number, number];
  short: [number, number];
  long: [number, number];
  longShare: number;
}

export function benchAsks(w: BenchWorkload): GenAsk[] {
  const rng = new Rng(w.seed);
  return Array.from({ length: w.count }, () => {
    const inputTokens = rng.int(w.prompt[0], w.prompt[1]);
    const maxTokens = rng.next() < w.longShare ? rng.int(w.long[0], w.long[1]) : rng.int(w.short[0], w.short[1]);
    return { text: promptOfLength(rng, inputTokens), inputTokens, maxTokens };
  });
}
