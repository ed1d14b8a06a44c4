/**
 * A generative perf run's requests, as genai-perf / AIPerf synthesise them: each prompt's length drawn
 * from a normal distribution (`--synthetic-input-tokens-mean` / `-stddev`) and each output length likewise
 * (`--output-tokens-mean` / `-stddev`, sent as `max_tokens`). Tokens are bytes: InferScope's generative
 * models are byte-level (no tokenizer), so an ASCII prompt of n characters is n input tokens. Seeded.
 */
import { Rng } from '@inferscope/core/load';

export interface GenAsk {
  text: string;
  /** input tokens (the prompt's bytes) */
  inputTokens: number;
  /** max_tokens: the output length asked */
  maxTokens: number;
}

export interface GenLengths {
  inputMean: number;
  inputStddev: number;
  outputMean: number;
  outputStddev: number;
}

const WORDS = ['the', 'server', 'batches', 'every', 'step', 'KV', 'cache', 'tokens', 'continuous', 'InferScope', 'stream', 'model'];

/** An ASCII prompt of exactly `n` bytes (words, cut at the end), seeded. */
export function promptOfLength(rng: Rng, n: number): string {
  let text = '';
  while (text.length < n) text += (text ? ' ' : '') + WORDS[rng.int(0, WORDS.length - 1)];
  return text.slice(0, n);
}

/** A length drawn from normal(mean, stddev), rounded, at least 1 (genai-perf's rule) and at most `max`. */
export function drawLength(rng: Rng, mean: number, stddev: number, max = Number.MAX_SAFE_INTEGER): number {
  return Math.min(max, Math.max(1, Math.round(stddev > 0 ? rng.normal(mean, stddev) : mean)));
}

/**
 * `count` requests. `maxSeqLen` (the model's max_seq_len, when known) caps prompt + output so no request is
 * refused for its length: a refusal would measure the server's error path, not generation.
 */
export function syntheticAsks(lengths: GenLengths, count: number, seed: number, maxSeqLen?: number): GenAsk[] {
  const rng = new Rng(seed);
  return Array.from({ length: count }, () => {
    const cap = maxSeqLen ?? Number.MAX_SAFE_INTEGER;
    const inputTokens = drawLength(rng, lengths.inputMean, lengths.inputStddev, cap - 1);
    const maxTokens = drawLength(rng, lengths.outputMean, lengths.outputStddev, cap - inputTokens);
    return { text: promptOfLength(rng, inputTokens), inputTokens, maxTokens };
  });
}
