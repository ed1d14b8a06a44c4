/**
 * A live viewer cannot make the server buffer without limit (issue 13, item 7): 60,000 `resync` from a
 * tokenless viewer that never read its socket grew RSS by 624 MB and it stayed connected. Now snapshots
 * are rate-limited per client (one per second, a resync inside the second is answered at its end), and a
 * client whose unsent bytes pass the bound is disconnected. Live limits must be ones the server can carry:
 * priority_levels above 1,000 is refused.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, MiB, type Running } from './harness.ts';
import { connectLive, control } from './live-client.ts';
import { validMlpRequest } from './corpus.ts';
import { FlowControl, RESYNC_INTERVAL_MS } from '../../apps/server/src/live/flow-control.ts';

let server: Running;
before(async () => {
  server = await startServer({ controlMode: 'explicit', loadModels: ['mlp_classifier'] });
});
after(() => server?.close());

test('60,000 resync: snapshots at most one per second, the last resync still answered', { timeout: 60_000 }, async () => {
  const { socket } = await connectLive(server.url);
  let snapshots = 0;
  socket.on('snapshot', () => snapshots++);
  const t0 = Date.now();
  for (let i = 0; i < 60_000; i++) socket.emit('resync');
  // wait for the deferred answer to the burst (one interval after the first snapshot)
  await new Promise((r) => setTimeout(r, RESYNC_INTERVAL_MS * 2 + 500));
  const elapsed = Date.now() - t0;
  assert.ok(snapshots >= 1, 'the resync burst got no snapshot at all');
  assert.ok(snapshots <= Math.ceil(elapsed / RESYNC_INTERVAL_MS) + 1, `${snapshots} snapshots in ${elapsed} ms`);
  console.log(`live flood: 60,000 resync -> ${snapshots} snapshots in ${elapsed} ms`);
  socket.close();
});

test('a viewer that never reads and floods resync: RSS bounded, others served', { timeout: 60_000 }, async () => {
  const { socket } = await connectLive(server.url);
  // stop reading: the TCP socket under the WebSocket is paused, so whatever the server sends piles up
  const ws = (socket.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws;
  ws._socket.pause();
  const rss0 = process.memoryUsage().rss;
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 10_000; i++) socket.emit('resync');
    await new Promise((r) => setTimeout(r, 200));
  }
  const grown = (process.memoryUsage().rss - rss0) / MiB;
  const res = await server.app.inject({ method: 'POST', url: '/v2/models/mlp_classifier/infer', payload: validMlpRequest() });
  assert.equal(res.statusCode, 200);
  console.log(`live flood: non-reading viewer, 60,000 resync: RSS +${grown.toFixed(0)} MiB`);
  assert.ok(grown < 150, `RSS grew ${grown.toFixed(0)} MiB`);
  ws._socket.resume();
  socket.close();
});

test('a client whose unsent bytes pass the bound is disconnected; one under it is kept', () => {
  const flow = new FlowControl({ maxBacklogBytes: 1000 });
  const fake = (buffered: number, queued: string[]) => {
    const s = {
      id: `s${buffered}`,
      connected: true,
      disconnected: false,
      conn: { writeBuffer: queued.map((data) => ({ data })), transport: { socket: { bufferedAmount: buffered } } },
      disconnect() {
        this.connected = false;
        this.disconnected = true;
      },
    };
    return s;
  };
  const ok = fake(500, ['x'.repeat(400)]);
  assert.equal(flow.check(ok as never), true);
  assert.equal(ok.disconnected, false);
  const slow = fake(800, ['x'.repeat(400)]);
  assert.equal(flow.check(slow as never), false);
  assert.equal(slow.disconnected, true);
  assert.equal(flow.dropped, 1);
});

test('priority_levels and priority levels above 1,000 are refused live', { timeout: 30_000 }, async () => {
  const { socket } = await connectLive(server.url);
  for (const msg of [
    { action: 'setDynamicBatching', model: 'mlp_classifier', priority_levels: 1_000_000 },
    { action: 'setDynamicBatching', model: 'mlp_classifier', default_priority_level: 5000 },
    { action: 'setDynamicBatching', model: 'mlp_classifier', priority_queue_policy: { '50000': { max_queue_size: 1 } } },
  ]) {
    const ack = await control(socket, msg);
    assert.equal(ack.ok, false, JSON.stringify(msg));
  }
  const ok = await control(socket, { action: 'setDynamicBatching', model: 'mlp_classifier', priority_levels: 4, default_priority_level: 1 });
  assert.equal(ok.ok, true, JSON.stringify(ok));
  socket.close();
});
