/** One generate_stream request to a generative model (server-sent events, a token each), read to its end: how many tokens came. */
import assert from 'node:assert/strict';
import { readTokenStream } from '@inferscope/core/util';

export async function streamTokens(url: string, model: string, prompt: string, maxTokens: number): Promise<number> {
  const res = await fetch(`${url}/v2/models/${model}/generate_stream`, { method: 'POST', body: JSON.stringify({ text_input: prompt, max_tokens: maxTokens }) });
  assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
  const read = await readTokenStream(res.body!, 0, () => 0, () => {});
  assert.equal(read.error, undefined);
  return read.tokens.length;
}
