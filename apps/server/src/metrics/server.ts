/**
 * The metrics endpoint on its own port (Triton: --metrics-port, default 8002): GET /metrics and nothing
 * else. A bare node:http server: it has one route and must stay cheap while the inference port is busy.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTENT_TYPE } from './exposition';
import { DEFAULT_TIMEOUTS, guardHttp1, type ConnectionTimeouts } from '../net/connection-timeouts';

export interface MetricsServerOptions {
  /** 0 = any free port */
  port: number;
  host?: string;
  metrics: { render(): string };
  /** handshake and idle timeouts of its connections (default: the server's defaults) */
  timeouts?: ConnectionTimeouts;
}

export interface MetricsServer {
  port: number;
  host: string;
  url: string;
  close(): Promise<void>;
}

export const DEFAULT_METRICS_PORT = 8002;

export function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not Found' }));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'GET, HEAD' });
      res.end(JSON.stringify({ error: 'Method Not Allowed' }));
      return;
    }
    let text: string;
    try {
      text = options.metrics.render();
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String((err as Error).message) }));
      return;
    }
    res.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
    res.end(req.method === 'HEAD' ? undefined : text);
  });
  guardHttp1(server, options.timeouts ?? DEFAULT_TIMEOUTS);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        port,
        host,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
