// The streaming lesson's reader: server-sent events split however the network cuts them, each token timed
// as it arrives, an error event reported, and the timings the page shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTokenStream, splitEvents, streamTimings } from '../src/teach/token-stream';

function chunked(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const s of chunks) c.enqueue(enc.encode(s));
      c.close();
    },
  });
}

test('events cut anywhere by the network come out whole, each token timed when its event completed', async () => {
  let clock = 100;
  const seen: string[] = [];
  const body = chunked(['data: {"text_output": " the"}\n', '\ndata: {"text_o', 'utput": " server"}\n\ndata: {"text_output": " runs"}\n\n']);
  const now = () => (clock += 10);
  const r = await readTokenStream(body, 100, now, (t) => seen.push(t.text));
  assert.deepEqual(seen, [' the', ' server', ' runs']);
  assert.deepEqual(r.tokens.map((t) => t.atMs), [10, 20, 30]);
  assert.equal(r.error, undefined);
  assert.deepEqual(streamTimings(r.tokens, r.endMs), { tokens: 3, firstMs: 10, totalMs: 40, gapMs: 10 });
});

test('an error event ends the read with the model\'s message; a stream of nothing has no first token', async () => {
  const r = await readTokenStream(chunked(['data: {"error": "max_tokens must be between 0 and 256, got 999"}\n\n']), 0, () => 5, () => undefined);
  assert.equal(r.error, 'max_tokens must be between 0 and 256, got 999');
  assert.deepEqual(streamTimings(r.tokens, r.endMs), { tokens: 0, firstMs: undefined, totalMs: 5, gapMs: undefined });
  assert.deepEqual(splitEvents('data: {"a":1}\n\ndata: {"b"'), { events: ['{"a":1}'], rest: 'data: {"b"' });
});
