/**
 * The stub channel's frame reader (backends/stub/protocol.ts): frames reassembled whatever the chunking,
 * each into its own 8-aligned buffer, and a frame announcing more than the bound refused from its 8-byte
 * prefix, before anything more is kept (issue 56: a header claiming 512 MiB had the server buffer it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHeader, FrameReader, FrameTooLargeError, type Frame, type FromStub } from '../../apps/server/src/backends/stub/protocol';

function frame(message: FromStub, body: Uint8Array): Buffer {
  return Buffer.concat([encodeHeader(message, body.byteLength), body]);
}

const a = frame({ type: 'runError', id: 1, message: 'first' }, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
const b = frame({ type: 'runError', id: 2, message: 'second, no body' }, new Uint8Array(0));
const c = frame({ type: 'runError', id: 3, message: 'third' }, new Uint8Array(1000).fill(9));
const stream = Buffer.concat([a, b, c]);

function read(chunks: Buffer[], bound?: number): Array<Frame<FromStub>> {
  const frames: Array<Frame<FromStub>> = [];
  const reader = new FrameReader<FromStub>((f) => frames.push(f), bound);
  for (const chunk of chunks) reader.push(chunk);
  return frames;
}

function check(frames: Array<Frame<FromStub>>): void {
  assert.deepEqual(frames.map((f) => (f.message as { id: number }).id), [1, 2, 3]);
  assert.deepEqual([...frames[0].body], [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(frames[1].body.byteLength, 0);
  assert.equal(frames[2].body.byteLength, 1000);
  assert.ok(frames[2].body.every((x) => x === 9));
  for (const f of frames) assert.equal(f.body.byteOffset % 8, 0, 'a body starts 8-aligned in its own buffer');
}

test('frames are reassembled whatever the chunking: whole, byte by byte, split inside the prefix', () => {
  check(read([stream]));
  check(read([...stream].map((x) => Buffer.from([x]))));
  check(read([stream.subarray(0, 3), stream.subarray(3, a.byteLength + 5), stream.subarray(a.byteLength + 5)]));
});

test('a frame announcing more than the bound is refused from its prefix; nothing after it is read', () => {
  const bound = 4096;
  const liar = Buffer.alloc(8);
  liar.writeUInt32LE(8, 0);
  liar.writeUInt32LE(512 * 1024 * 1024, 4);
  const frames: Array<Frame<FromStub>> = [];
  const reader = new FrameReader<FromStub>((f) => frames.push(f), bound);
  reader.push(a);
  assert.throws(() => reader.push(liar.subarray(0, 8)), (err: Error) => err instanceof FrameTooLargeError && err.bytes === 16 + 512 * 1024 * 1024 && err.bound === bound
    && /a frame of 536870928 bytes, more than the 4096 a stub may send \(--max-inflight-bytes\)/.test(err.message));
  reader.push(b); // dropped: the stream's framing is no longer trusted
  assert.equal(frames.length, 1);
  // a frame of exactly the bound is served
  check(read([stream], c.byteLength));
});
