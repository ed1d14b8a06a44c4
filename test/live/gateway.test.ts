import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, SchedulerEvent, Snapshot, StatsMessage } from '@inferscope/core';
import { startFakeServer, next, control } from './fake-server.ts';

test('a client gets a snapshot on connect and again on resync', async () => {
  const h = await startFakeServer();
  try {
    const s = h.connect();
    const client = await s;
    // the snapshot is emitted on connection; it may already be here, so resync and wait for the second one
    const snap = next<Snapshot>(client, 'snapshot');
    client.emit('resync');
    const got = await snap;
    assert.equal(got.server.name, 'inferscope');
    assert.equal(got.server.token_required, false);
    assert.equal(got.server.can_control, true);
    assert.deepEqual(got.repositories, ['/r']);
    assert.equal(got.models[0].name, 'm');
    assert.equal(got.models[0].instances[0].state, 'idle');
    assert.equal(got.memory[0].device, 'cpu');
    assert.equal(got.t, 123);
  } finally {
    await h.close();
  }
});

test('events arrive coalesced in frames with increasing sequence numbers; stats follow', async () => {
  const h = await startFakeServer();
  try {
    const c = await h.connect();
    const frames: Frame[] = [];
    c.on('frame', (f: Frame) => frames.push(f));
    const stats = next<StatsMessage>(c, 'stats');
    for (let i = 0; i < 10; i++)
      h.bus.emit({ type: 'request.queued', t: i, model: 'm', version: '1', request_id: `r${i}`, priority: 1, batch_size: 1, queue_depth: i + 1 });
    const st = await stats;
    assert.equal(st.models[0].model, 'm');
    assert.equal(st.models[0].totals.completed, 10, 'the aggregate source saw every event');
    while (frames.reduce((n, f) => n + f.events.length, 0) < 10) await new Promise((r) => setTimeout(r, 10));
    assert.ok(frames.length <= 2, `10 events coalesced into ${frames.length} frame(s)`);
    assert.deepEqual(frames.flatMap((f) => f.events).map((e) => (e as { request_id: string }).request_id), Array.from({ length: 10 }, (_, i) => `r${i}`));
    frames.forEach((f, i) => assert.equal(f.seq, i + 1));
  } finally {
    await h.close();
  }
});

test('a flood is sampled: frames stay bounded and count what they left out; control-plane events survive', async () => {
  const cap = 500;
  const h = await startFakeServer({ coalescer: { maxEventsPerFrame: cap, maxBufferedEvents: 5000 } });
  try {
    const c = await h.connect();
    const frames: Frame[] = [];
    c.on('frame', (f: Frame) => frames.push(f));
    const total = 40_000;
    for (let i = 0; i < total; i++) {
      const e: SchedulerEvent =
        i % 10_000 === 5
          ? { type: 'config.changed', t: i, model: 'm', version: '1', changes: [], by: 'test' }
          : { type: 'request.queued', t: i, model: 'm', version: '1', request_id: `r${i}`, priority: 1, batch_size: 1, queue_depth: 1 };
      h.bus.emit(e);
    }
    const deadline = Date.now() + 30_000; // a bound for failure only: the loop ends when all arrived
    while (frames.reduce((n, f) => n + f.events.length + f.dropped, 0) < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const delivered = frames.reduce((n, f) => n + f.events.length, 0);
    const dropped = frames.reduce((n, f) => n + f.dropped, 0);
    assert.equal(delivered + dropped, total, 'every event is either delivered or counted as dropped');
    assert.ok(dropped > 0);
    for (const f of frames) assert.ok(f.events.length <= cap + 4, `frame of ${f.events.length} events exceeds the bound`);
    assert.equal(frames.flatMap((f) => f.events).filter((e) => e.type === 'config.changed').length, 4, 'config changes are never sampled');
  } finally {
    await h.close();
  }
});

test('a client that stops reading is sampled: the server holds no growing backlog for it, and it learns what it missed', async () => {
  const h = await startFakeServer({ coalescer: { maxBacklog: 2, maxEventsPerFrame: 2000 } });
  try {
    const slow = await h.connect();
    const frames: Frame[] = [];
    slow.on('frame', (f: Frame) => frames.push(f));
    // Stop reading from the TCP socket: the kernel buffers fill and the server's writes stall.
    const raw = (slow.io.engine.transport as unknown as { ws: { _socket: import('node:net').Socket } }).ws._socket;
    raw.pause();
    const big = 'x'.repeat(120);
    let emitted = 0;
    const serverSocket = [...h.gateway.io.of('/').sockets.values()][0];
    for (let tick = 0; tick < 40; tick++) {
      for (let i = 0; i < 1000; i++, emitted++)
        h.bus.emit({ type: 'request.rejected', t: emitted, model: 'm', version: '1', request_id: `r${emitted}-${big}`, reason: 'queue_full', message: big });
      await new Promise((r) => setTimeout(r, 25));
    }
    const queued = (serverSocket.conn as unknown as { writeBuffer: unknown[] }).writeBuffer.length;
    assert.ok(queued <= 4, `server-side packets queued for the stalled client: ${queued}`);
    raw.resume();
    const deadline = Date.now() + 30_000; // a bound for failure only
    while (frames.reduce((n, f) => n + f.events.length + f.dropped, 0) < emitted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const dropped = frames.reduce((n, f) => n + f.dropped, 0);
    assert.equal(frames.reduce((n, f) => n + f.events.length, 0) + dropped, emitted, 'delivered + dropped = emitted');
    assert.ok(dropped > emitted / 2, `dropped ${dropped} of ${emitted}`);
  } finally {
    await h.close();
  }
});

test('frames follow clients: what was buffered for a client that left never reaches a later one, whose frames start after its snapshot', async () => {
  // a long frame interval, so the events emitted just before the first client leaves are still buffered
  const h = await startFakeServer({ frameIntervalMs: 300 });
  const ids = (frames: Frame[]) => frames.flatMap((f) => f.events).map((e) => (e as { request_id?: string }).request_id);
  const queued = (id: string): SchedulerEvent => ({ type: 'request.queued', t: 1, model: 'm', version: '1', request_id: id, priority: 1, batch_size: 1, queue_depth: 1 });
  try {
    const first = await h.connect();
    for (let i = 0; i < 3; i++) h.bus.emit(queued(`late${i}`));
    first.disconnect();
    while (h.gateway.io.of('/').sockets.size > 0) await new Promise((r) => setTimeout(r, 5));
    h.bus.emit(queued('nobody'));
    const later = await h.connect();
    const frames: Frame[] = [];
    later.on('frame', (f: Frame) => frames.push(f));
    h.bus.emit(queued('after'));
    while (!ids(frames).includes('after')) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(ids(frames), ['after'], 'the later client sees only what happened after it connected');
    assert.equal(frames[0].seq, 1);
  } finally {
    await h.close();
  }
});
