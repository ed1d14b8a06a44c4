import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { BatchFormedEvent, ControlAck, Frame, Snapshot, StatsMessage } from '@inferscope/core';
import { startRealServer, type RealServer } from './real-server.ts';
import { next } from './fake-server.ts';

let s: RealServer;
before(async () => {
  s = await startRealServer();
});
after(async () => {
  await s?.close();
});

const control = (socket: import('socket.io-client').Socket, msg: unknown) => socket.timeout(10_000).emitWithAck('control', msg) as Promise<ControlAck & Record<string, unknown>>;

test('the snapshot describes the real server: models, config, instances, memory', async () => {
  const c = await s.connect();
  const snap = next<Snapshot>(c, 'snapshot');
  c.emit('resync');
  const got = await snap;
  const mlp = got.models.find((m) => m.name === 'mlp_classifier' && m.version === '2');
  assert.ok(mlp, JSON.stringify(got.models.map((m) => [m.name, m.version])));
  assert.equal(mlp.state, 'READY');
  assert.equal((mlp.config as { max_batch_size: number }).max_batch_size, 64);
  assert.equal(mlp.instances.length, 2);
  assert.ok(got.memory.some((d) => d.device === 'cpu' && d.used_bytes > 0), JSON.stringify(got.memory));
  assert.equal(got.server.can_control, true);
});

test('a delay change is applied (the next batches follow it) and broadcast to another client', async () => {
  const a = await s.connect();
  const b = await s.connect();
  const changed = new Promise<Frame>((resolve) => b.on('frame', (f: Frame) => f.events.some((e) => e.type === 'config.changed') && resolve(f)));
  // no preferred sizes: a batch can only leave when full (64) or when its oldest request waited the delay
  const ack1 = await control(a, { action: 'setDynamicBatching', model: 'mlp_classifier', version: '2', preferred_batch_size: [], max_queue_delay_microseconds: 200_000 });
  assert.equal(ack1.ok, true, JSON.stringify(ack1));
  const f = await changed;
  const ev = f.events.find((e) => e.type === 'config.changed');
  assert.ok(ev && ev.type === 'config.changed' && ev.by === `dashboard:${a.id}`);
  const from = s.events.length;
  const start = await control(a, { action: 'startLoad', model: 'mlp_classifier', scenario: 'steady', rate: 200, duration: 1, mode: 'inprocess' });
  assert.equal(start.ok, true, JSON.stringify(start));
  await s.load.wait(start.id as string);
  const events = s.events.slice(from).filter((e) => e.type !== 'memory' && e.model === 'mlp_classifier' && e.version === '2');
  const batches = events.filter((e): e is BatchFormedEvent => e.type === 'batch.formed');
  assert.ok(batches.length > 0);
  // No preferred sizes and 200 ms of delay: with 200 req/s no batch fills up (64), so every batch leaves
  // because its oldest request waited the delay. Checked on the scheduler's clock and as relations, not
  // wall-clock sizes: a starved load generator (2 busy cores) sends in clumps, which changes how many
  // requests a batch catches but not these facts.
  const full = (x: BatchFormedEvent) => x.trigger === 'max_batch' && x.size > 32;
  assert.ok(batches.every((x) => x.trigger === 'delay' || full(x)), JSON.stringify(batches.map((x) => [x.size, x.trigger])));
  const delayed = batches.filter((x) => x.trigger === 'delay');
  assert.ok(delayed.length >= 2, JSON.stringify(batches.map((x) => [x.size, x.trigger])));
  for (const x of delayed) assert.ok(x.oldest_wait_us >= 200_000, `oldest waited ${x.oldest_wait_us} us`);
  // A batch that waited takes every request that was waiting when it formed (nothing is left behind to
  // start a new small batch), so there are far fewer batches than requests.
  const waiting = new Set<string>();
  let queued = 0;
  for (const e of events) {
    if (e.type === 'request.queued') {
      waiting.add(e.request_id);
      queued++;
    } else if (e.type === 'batch.formed') {
      for (const id of e.request_ids) waiting.delete(id);
      if (e.trigger === 'delay') assert.deepEqual([...waiting], [], `batch ${e.batch_id} (${e.size}) left waiting requests behind`);
    }
  }
  assert.ok(batches.length * 5 <= queued, `${queued} requests in ${batches.length} batches`);
  assert.ok(delayed.some((x) => x.size >= 10), JSON.stringify(delayed.map((x) => x.size)));
  const restore = await control(a, { action: 'setDynamicBatching', model: 'mlp_classifier', version: '2', preferred_batch_size: [8, 16, 32], max_queue_delay_microseconds: 2000 });
  assert.equal(restore.ok, true);
});

test('a refused change (max_batch_size above what the model allows) gets the manager reason and changes nothing', async () => {
  const c = await s.connect();
  const before = s.manager.get('mlp_classifier', '2')!.config;
  const ack = await control(c, { action: 'setDynamicBatching', model: 'mlp_classifier', version: '2', max_batch_size: 1000 });
  assert.equal(ack.ok, false);
  assert.match(String(ack.error), /max_batch_size/);
  assert.deepEqual(s.manager.get('mlp_classifier', '2')!.config, before);
});

test('stats arrive about every window with the model aggregates and load progress', async () => {
  const c = await s.connect();
  const start = await control(c, { action: 'startLoad', model: 'mlp_classifier', scenario: 'poisson', rate: 300, duration: 1 });
  assert.equal(start.ok, true, JSON.stringify(start));
  let seen: StatsMessage | undefined;
  for (let i = 0; i < 10 && !seen; i++) {
    const m = await next<StatsMessage>(c, 'stats');
    if (m.load?.some((l) => l.id === start.id && l.sent > 0) && m.models.some((x) => x.model === 'mlp_classifier' && x.throughput_per_s > 0)) seen = m;
  }
  assert.ok(seen, 'a stats message with running load and throughput');
  const done = await s.load.wait(start.id as string);
  assert.equal(done.result.answered, done.result.sent);
  assert.equal(done.summary.errors, 0, JSON.stringify(done.summary.errors_by_status));
});

test('on a server started with a control token, viewers cannot change anything and the token holder can', async () => {
  const t = await startRealServer({ token: 'tok-123' });
  try {
    const viewer = await t.connect();
    const vs = next<Snapshot>(viewer, 'snapshot');
    viewer.emit('resync');
    const snap = await vs;
    assert.equal(snap.server.token_required, true);
    assert.equal(snap.server.can_control, false);
    const before = t.manager.get('mlp_classifier')!.config.dynamic_batching;
    for (const msg of [
      { action: 'setDynamicBatching', model: 'mlp_classifier', max_queue_delay_microseconds: 1 },
      { action: 'startLoad', model: 'mlp_classifier', scenario: 'steady', duration: 1 },
      { action: 'unloadModel', model: 'mlp_classifier' },
    ]) {
      const ack = await control(viewer, msg);
      assert.equal(ack.ok, false);
      assert.match(String(ack.error), /token/);
    }
    assert.deepEqual(t.manager.get('mlp_classifier')!.config.dynamic_batching, before);
    assert.equal(t.load.progress().length, 0);
    const owner = await t.connect({ token: 'tok-123' });
    const ok = await control(owner, { action: 'setDynamicBatching', model: 'mlp_classifier', max_queue_delay_microseconds: 1 });
    assert.equal(ok.ok, true, JSON.stringify(ok));
    assert.equal(t.manager.get('mlp_classifier')!.config.dynamic_batching?.max_queue_delay_microseconds, 1);
  } finally {
    await t.close();
  }
});
