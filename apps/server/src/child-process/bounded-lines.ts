/**
 * Lines from a child's pipe, each at most `maxLineBytes` long: what a line holds past the cap is counted
 * and dropped, and the line is logged with a note saying how much was left out. readline would instead
 * join one line into a single string however long it grows, and a model that prints 600 MiB without a
 * newline then ends the server with `RangeError: Invalid string length`. Here memory is bounded by the cap
 * plus one chunk of the pipe, whatever the child writes.
 */
import type { Readable } from 'node:stream';

/** The longest line kept from a child's stdout/stderr (64 KiB, as a pipe's buffer on Linux). */
export const MAX_LINE_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

export function truncatedNote(kept: number, total: number): string {
  return ` [line truncated: ${total - kept} of ${total} bytes left out]`;
}

/**
 * Calls `onLine` for each line of `stream` (without its '\n' or '\r\n'), the last one too when the stream
 * ends without a newline. Returns nothing: the stream is consumed until it ends or errors.
 */
export function readBoundedLines(stream: Readable, onLine: (line: string) => void, maxLineBytes = MAX_LINE_BYTES): void {
  let parts: Buffer[] = [];
  let kept = 0;
  let total = 0;
  const keep = (chunk: Buffer, from: number, to: number): void => {
    total += to - from;
    const room = maxLineBytes - kept;
    if (room <= 0 || to <= from) return;
    const piece = chunk.subarray(from, Math.min(to, from + room));
    parts.push(piece);
    kept += piece.byteLength;
  };
  const flush = (): void => {
    let text = Buffer.concat(parts, kept).toString('utf8');
    if (total === kept && text.endsWith('\r')) text = text.slice(0, -1);
    const line = total > kept ? text + truncatedNote(kept, total) : text;
    // a kept slice of a large chunk would pin the whole chunk: the concat above copied it out
    parts = [];
    kept = 0;
    total = 0;
    onLine(line);
  };
  stream.on('data', (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    for (let nl = buf.indexOf(NEWLINE, from); nl >= 0; nl = buf.indexOf(NEWLINE, from)) {
      keep(buf, from, nl);
      flush();
      from = nl + 1;
    }
    // Copy what is kept of an unfinished line: a subarray would hold the pipe's whole chunk alive.
    if (from < buf.byteLength) {
      const before = parts.length;
      keep(buf, from, buf.byteLength);
      if (parts.length > before) parts[parts.length - 1] = Buffer.from(parts[parts.length - 1]);
    }
  });
  stream.on('end', () => {
    if (total > 0) flush();
  });
  stream.on('error', () => undefined); // the child's exit reports what happened
}
