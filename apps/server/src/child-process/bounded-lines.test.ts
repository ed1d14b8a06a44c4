// A child's output lines are capped: a line far past the cap (one longer than V8's longest string, which
// ended the server inside readline) is cut to the cap with a note of what was left out, and the lines
// around it arrive whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { MAX_LINE_BYTES, readBoundedLines } from './bounded-lines';

function collect(maxLineBytes?: number): { stream: PassThrough; lines: string[]; ended: Promise<void> } {
  const stream = new PassThrough();
  const lines: string[] = [];
  readBoundedLines(stream, (l) => lines.push(l), maxLineBytes);
  const ended = new Promise<void>((resolve) => stream.on('end', resolve));
  return { stream, lines, ended };
}

test('lines split across chunks, CRLF, a last line without newline', async () => {
  const { stream, lines, ended } = collect();
  for (const piece of ['al', 'pha\nbe', 'ta\r\n\ngam', 'ma']) stream.write(piece);
  stream.end();
  await ended;
  assert.deepEqual(lines, ['alpha', 'beta', '', 'gamma']);
});

test('a line past the cap is cut with a note; the next line is whole', async () => {
  const { stream, lines, ended } = collect(16);
  stream.write('short\n' + 'x'.repeat(40));
  stream.write('y'.repeat(10) + '\nafter\n');
  stream.end();
  await ended;
  assert.deepEqual(lines, ['short', `${'x'.repeat(16)} [line truncated: 34 of 50 bytes left out]`, 'after']);
});

test('one 600 MiB line (longer than the longest string V8 can make) costs no more than the cap', { timeout: 120_000 }, async () => {
  const { stream, lines, ended } = collect();
  const chunk = Buffer.alloc(1 << 20, 0x61); // one 1 MiB chunk written 600 times: the test holds 1 MiB
  const heapBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < 600; i++) {
    if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
  }
  stream.end('\nnext\n');
  await ended;
  assert.equal(lines.length, 2);
  assert.equal(lines[1], 'next');
  const total = 600 * (1 << 20);
  assert.equal(lines[0], 'a'.repeat(MAX_LINE_BYTES) + ` [line truncated: ${total - MAX_LINE_BYTES} of ${total} bytes left out]`);
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 64 * 1024 * 1024, 'the line was not held');
});
