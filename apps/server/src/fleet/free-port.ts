import { createServer } from 'node:net';

/**
 * A port that is free right now on `host`. HAProxy and Prometheus cannot report the port they got for
 * `:0`, so the fleet picks theirs this way (the short race with another process is acceptable for a
 * local tool; a clash fails their start with a clear message).
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
