/**
 * Raw HTTP/1.1 over node:net, for what an HTTP client library will not send: lying Content-Length,
 * truncated bodies, oversized headers, broken chunked encoding. One request per connection.
 */
import { connect } from 'node:net';

export interface RawResponse {
  /** 0 when the server closed the connection without an answer */
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function parseRawResponse(buf: Buffer): RawResponse {
  const text = buf.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: '' };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let body = buf.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let rest = body;
    for (;;) {
      const nl = rest.indexOf('\r\n');
      if (nl < 0) break;
      const size = parseInt(rest.subarray(0, nl).toString(), 16);
      if (!size) break;
      parts.push(rest.subarray(nl + 2, nl + 2 + size));
      rest = rest.subarray(nl + 2 + size + 2);
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(statusLine.split(' ')[1]) || 0, headers, body: body.toString('utf8') };
}

/**
 * Sends `head` (request line + headers, without the blank line) and `body`, then half-closes when
 * `halfClose` (the client is done sending, e.g. a truncated body), and reads until the server closes
 * or `timeoutMs` passes.
 */
export function rawRequest(port: number, head: string, body: Buffer, opts: { halfClose?: boolean; timeoutMs?: number } = {}): Promise<RawResponse & { timedOut: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseRawResponse(Buffer.concat(chunks)), timedOut });
    };
    const timer = setTimeout(() => finish(true), opts.timeoutMs ?? 5000);
    socket.on('data', (d) => {
      chunks.push(d);
      // One answer is all we wait for: stop once a full content-length body is in.
      const r = parseRawResponse(Buffer.concat(chunks));
      const cl = Number(r.headers['content-length']);
      if (r.status && Number.isFinite(cl) && Buffer.byteLength(r.body) >= cl) finish(false);
    });
    socket.on('end', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('error', () => finish(false));
    socket.write(head + '\r\n\r\n');
    if (body.byteLength > 0) socket.write(body);
    if (opts.halfClose) socket.end();
  });
}

export function postHead(path: string, headers: Record<string, string>): string {
  return [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
}
