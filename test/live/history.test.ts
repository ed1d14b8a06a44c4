import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Snapshot, StatsMessage } from '@inferscope/core';
import { startFakeServer, next, control } from './fake-server.ts';
import { StatsHistory } from '../../apps/server/src/live/stats-history.ts';

const msg = (t: number, pad = 0): StatsMessage => ({
  t, wall_ms: t, models: [], load: [{ id: 'l', model: 'm', scenario: 'x'.repeat(pad), state: 'running', sent: 1, answered: 1, errors: 0, elapsed_s: 1, duration_s: 2 }],
});

test('the history ring is bounded by count and by bytes, and keeps no load progress', () => {
  const h = new StatsHistory({ maxEntries: 5, maxBytes: 10_000 });
  for (let i = 0; i < 12; i++) h.push(msg(i, 50_000));
  const snap = h.snapshot();
  assert.deepEqual(snap.stats.map((s) => s.t), [7, 8, 9, 10, 11], 'the newest five, oldest first');
  assert.equal(snap.stats[0].load, undefined, 'load progress (here 50 kB each) is not kept');
  const bytes = new StatsHistory({ maxEntries: 1000, maxBytes: 2000 });
  for (let i = 0; i < 200; i++) bytes.push({ t: i, wall_ms: 0, models: [], cpu: { utilization: 0.5 } });
  assert.ok(bytes.sizeBytes <= 2000, `held ${bytes.sizeBytes} bytes`);
  assert.equal(JSON.stringify(bytes.snapshot()).length <= 2100, true);
  assert.equal(bytes.snapshot().stats.at(-1)?.t, 199, 'the newest survive');
  for (let i = 0; i < 150; i++) bytes.pushConfigChange({ type: 'config.changed', t: i, model: 'm', version: '1', by: 'cli', changes: [] });
  assert.ok(bytes.snapshot().config_changes.length <= 100);
  assert.ok(bytes.sizeBytes <= 2000);
});

test('a client that connects later gets the past stats (with CPU) and config changes in its snapshot', async () => {
  let cpuReads = 0;
  const h = await startFakeServer({ cpu: () => (++cpuReads, 0.25) });
  try {
    const first = await h.connect();
    assert.equal((await control(first, { action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 3000 })).ok, true);
    const live = await next<StatsMessage>(first, 'stats');
    assert.deepEqual(live.cpu, { utilization: 0.25 });
    await next<StatsMessage>(first, 'stats');
    const late = await h.connect();
    const snap = next<Snapshot>(late, 'snapshot');
    late.emit('resync');
    const got = await snap;
    assert.ok(got.history, 'the snapshot carries history');
    assert.ok(got.history.stats.length >= 2, `${got.history.stats.length} past stats`);
    assert.deepEqual(got.history.stats.at(-1)?.cpu, { utilization: 0.25 });
    assert.deepEqual(got.history.config_changes.map((e) => e.changes[0]?.new), [3000]);
    assert.ok(cpuReads >= 2);
  } finally {
    await h.close();
  }
});
