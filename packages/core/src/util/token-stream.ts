/**
 * Reading a generate_stream answer (server-sent events, one `data: {...}` per response) as it arrives: each
 * token with the time it arrived. One reader for the dashboard's streaming lesson and the server's
 * generative perf client (the time to first token and inter-token gaps they report come from here). Pure
 * apart from the stream it reads; the clock is passed in.
 */
export interface TokenArrival {
  text: string;
  /** ms since the request was sent */
  atMs: number;
}

/** The part of a WHATWG ReadableStream of bytes the reader uses (a fetch body, in Node and browsers). */
export interface ByteStream {
  getReader(): { read(): Promise<{ value?: Uint8Array; done: boolean }> };
}

/** Splits SSE text into complete events; returns them and what is left of an event still arriving. */
export function splitEvents(buffer: string): { events: string[]; rest: string } {
  const parts = buffer.split('\n\n');
  const rest = parts.pop() ?? '';
  const events = parts.map((p) => p.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n')).filter(Boolean);
  return { events, rest };
}

/**
 * Reads the stream to its end. `onToken` is called as each token arrives; an event with `error` ends the
 * read with that message (the model's error response).
 */
export async function readTokenStream(body: ByteStream, startMs: number, now: () => number, onToken: (t: TokenArrival) => void): Promise<{ tokens: TokenArrival[]; error?: string; endMs: number }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const tokens: TokenArrival[] = [];
  let buffer = '';
  let error: string | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: !done });
    const { events, rest } = splitEvents(done ? `${buffer}\n\n` : buffer);
    buffer = rest;
    for (const e of events) {
      const body = JSON.parse(e) as { text_output?: string; error?: string };
      if (body.error !== undefined) error ??= body.error;
      else if (typeof body.text_output === 'string') {
        const t = { text: body.text_output, atMs: now() - startMs };
        tokens.push(t);
        onToken(t);
      }
    }
    if (done) break;
  }
  return { tokens, endMs: now() - startMs, ...(error !== undefined ? { error } : {}) };
}
