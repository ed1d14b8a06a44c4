/**
 * The dashboard's sweep run inside the server: a startSweep control message sweeps a small grid live on
 * mlp_classifier v1, reports progress in the stats messages, ranks what it measured (the ranking agrees
 * with the measured numbers), marks the Pareto set and gives the model back its original config.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Snapshot, StatsMessage, SweepProgress } from '@inferscope/core';
import { startTestServer } from '../support/server';
import { connectSocket } from '../support/socket';

test('startSweep measures every config live, ranks them by the numbers and restores the original', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: ['mlp_classifier'] });
  const socket = await connectSocket(server.url);
  try {
    const refused = await socket.timeout(10_000).emitWithAck('control', { action: 'startSweep', model: 'mlp_classifier', version: '1', delay_us: [0], max_batch: [100_000] });
    assert.equal(refused.ok, false);
    assert.match(refused.error, /can only be lowered live/);
    const huge = await socket.timeout(10_000).emitWithAck('control', { action: 'startSweep', model: 'mlp_classifier', version: '1', delay_us: Array.from({ length: 30 }, (_, i) => i), instances: [1, 2, 3, 4] });
    assert.match(huge.error, /240 configs; at most 200/);
    const ack = await socket.timeout(10_000).emitWithAck('control', {
      action: 'startSweep', model: 'mlp_classifier', version: '1', delay_us: [0, 2000], preferred: ['none'], max_batch: [8, 32],
      concurrency: 4, measurement_interval_ms: 200, search: 'grid', confirm: 1, latency_budget_ms: 10_000,
    });
    assert.equal(ack.ok, true, JSON.stringify(ack));
    assert.equal(ack.total, 5, '4 configs + 1 confirmation');
    const again = await socket.timeout(10_000).emitWithAck('control', { action: 'startSweep', model: 'mlp_classifier', delay_us: [0] });
    assert.match(again.error, /is running/);
    const sweep = await new Promise<SweepProgress>((resolve) => {
      socket.on('stats', (s: StatsMessage) => {
        if (s.sweep && s.sweep.id === ack.id && s.sweep.state !== 'running') resolve(s.sweep);
      });
    });
    assert.equal(sweep.state, 'done', sweep.error);
    assert.equal(sweep.results.length, 4);
    assert.equal(sweep.done, sweep.total);
    const ranked = sweep.results.filter((r) => r.rank !== null);
    for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1].throughput_per_s >= ranked[i].throughput_per_s, 'best first by measured throughput');
    assert.ok(sweep.results.some((r) => r.pareto));
    for (const r of sweep.results) {
      assert.ok(r.throughput_per_s > 0 && r.latency_us.p99 > 0, JSON.stringify(r));
      assert.equal(r.errors, 0);
    }
    // the model is given back as it was before the sweep
    const snap = await new Promise<Snapshot>((resolve) => {
      socket.once('snapshot', resolve);
      socket.emit('resync');
    });
    const v1 = snap.models.find((m) => m.name === 'mlp_classifier' && m.version === '1')!;
    const cfg = v1.config as { max_batch_size: number; dynamic_batching: { max_queue_delay_microseconds: number; preferred_batch_size: number[] } };
    assert.deepEqual(
      { max: cfg.max_batch_size, delay: cfg.dynamic_batching.max_queue_delay_microseconds, pref: cfg.dynamic_batching.preferred_batch_size, instances: v1.instances.length },
      { max: sweep.original!.max_batch_size, delay: sweep.original!.max_queue_delay_microseconds, pref: sweep.original!.preferred_batch_size, instances: sweep.original!.instances },
    );
  } finally {
    socket.close();
    await server.close();
  }
});
