/**
 * One generation over HTTP `generate_stream` (Triton's generate extension, server-sent events), timed as
 * genai-perf times it: when the request was sent, when each response (one token) arrived, when the stream
 * ended. Every response carrying `text_output` is one token (the server sends one per token; a token that
 * completes no UTF-8 character carries ""), so the count is exact for a byte-level model.
 */
import { readTokenStream } from '@inferscope/core/util';
import type { GenAsk } from './gen-workload';

export interface GenRecord {
  /** ms on the client's clock (performance.now) */
  sentMs: number;
  /** each token's arrival, ms on the same clock */
  tokenMs: number[];
  endMs: number;
  inputTokens: number;
  /** the server's error message, when the request failed (its tokens so far are kept) */
  error?: string;
}

export type GenSend = (ask: GenAsk) => Promise<GenRecord>;

/** A sender to one model's generate_stream on `baseUrl` (http://host:port). */
export function httpGenerateStream(baseUrl: string, model: string, version?: string, now: () => number = () => performance.now()): GenSend {
  const url = `${baseUrl}/v2/models/${encodeURIComponent(model)}${version ? `/versions/${encodeURIComponent(version)}` : ''}/generate_stream`;
  return async (ask) => {
    const sentMs = now();
    const base = { sentMs, inputTokens: ask.inputTokens };
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text_input: ask.text, max_tokens: ask.maxTokens }) });
    } catch (e) {
      return { ...base, tokenMs: [], endMs: now(), error: `cannot reach ${url}: ${(e as Error).message}` };
    }
    if (res.status !== 200 || !res.body) {
      const text = await res.text();
      let message = text;
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? text;
      } catch { /* not JSON: the body as it is */ }
      return { ...base, tokenMs: [], endMs: now(), error: `HTTP ${res.status}: ${message}` };
    }
    const read = await readTokenStream(res.body, sentMs, now, () => undefined);
    return { ...base, tokenMs: read.tokens.map((t) => sentMs + t.atMs), endMs: sentMs + read.endMs, ...(read.error !== undefined ? { error: read.error } : {}) };
  };
}
