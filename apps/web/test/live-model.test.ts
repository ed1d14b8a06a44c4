import { test } from 'node:test';
import assert from 'node:assert/strict';
import { autotuneReport } from '@inferscope/core/autotune';
import type { Frame, SchedulerEvent, Snapshot, StatsMessage } from '@inferscope/core';
import { LiveModel } from '../src/store/live-model';
import { Ring } from '../src/store/ring';

const base = { model: 'm', version: '1' };

function snapshot(): Snapshot {
  return {
    server: { name: 's', version: '1', extensions: [], model_control_mode: 'none', token_required: false, can_control: true, cpu_count: 2, gpu_count: 0 },
    repositories: ['repo'],
    models: [{
      name: 'm', version: '1', state: 'READY', repository: 'repo', backend: 'onnxruntime', platform: 'onnxruntime_onnx',
      config: { max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 100 }, instance_group: [{ name: 'm_0', count: 1 }] },
      instances: [{ name: 'm_0_0', group: 'm_0', kind: 'KIND_CPU', device: 'cpu', state: 'idle' }],
      files: [{ path: 'm/1/model.onnx', bytes: 1000 }],
    }],
    memory: [], stats: null, t: 1000, wall_ms: 0,
  };
}

const queued = (id: string, t: number, priority = 1): SchedulerEvent => ({ type: 'request.queued', ...base, t, request_id: id, priority, batch_size: 1, queue_depth: 1 });

function lifecycle(live: LiveModel): void {
  live.apply(queued('r1', 1100));
  live.apply(queued('r2', 1200, 2));
  live.apply({ type: 'batch.formed', ...base, t: 1300, batch_id: 'b1', request_ids: ['r1', 'r2'], size: 2, trigger: 'delay', oldest_wait_us: 200 });
  live.apply({ type: 'batch.started', ...base, t: 1310, batch_id: 'b1', instance: 'm_0_0', size: 2 });
}

test('a request moves queued -> batched -> running -> done, and queue counts follow', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  live.apply(queued('r1', 1100));
  live.apply(queued('r2', 1200, 2));
  const m = live.models.get('m:1')!;
  assert.equal(m.queued.get(1), 1);
  assert.equal(m.queued.get(2), 1);
  assert.equal(live.oldestQueued('m:1')?.id, 'm:1/r1');
  live.apply({ type: 'batch.formed', ...base, t: 1300, batch_id: 'b1', request_ids: ['r1', 'r2'], size: 2, trigger: 'delay', oldest_wait_us: 200 });
  assert.equal(m.queued.get(1), 0);
  assert.equal(m.queued.get(2), 0);
  assert.equal(live.requests.get('m:1/r1')?.phase, 'batched');
  live.apply({ type: 'batch.started', ...base, t: 1310, batch_id: 'b1', instance: 'm_0_0', size: 2 });
  assert.equal(live.requests.get('m:1/r2')?.phase, 'running');
  assert.equal(m.instances.get('m_0_0')?.state, 'busy');
  assert.equal(m.instances.get('m_0_0')?.batchSize, 2);
  live.apply({ type: 'batch.completed', ...base, t: 1400, batch_id: 'b1', instance: 'm_0_0', size: 2, compute_us: 90, ok: true });
  assert.equal(m.instances.get('m_0_0')?.state, 'idle');
  assert.equal(live.timeline.last()?.trigger, 'delay');
  assert.equal(live.timeline.last()?.tStarted, 1310);
  live.apply({ type: 'request.completed', ...base, t: 1401, request_id: 'r1', batch_id: 'b1', priority: 1, batch_size: 1, queue_us: 200, compute_us: 90, total_us: 301, ok: true });
  assert.equal(live.requests.has('m:1/r1'), false);
  assert.equal(live.finished.last()?.phase, 'done');
  assert.equal(live.finished.last()?.totalUs, 301);
});

test('busy/idle flips do not bump the structural revision; a new instance or state change does', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  const rev = live.structureRev;
  lifecycle(live);
  live.apply({ type: 'instance.state', ...base, t: 1500, instance: 'm_0_0', kind: 'KIND_CPU', device: 'cpu', state: 'idle' });
  assert.equal(live.structureRev, rev);
  live.apply({ type: 'instance.state', ...base, t: 1600, instance: 'm_0_1', kind: 'KIND_CPU', device: 'cpu', state: 'loading' });
  assert.equal(live.structureRev, rev + 1);
  assert.equal(live.models.get('m:1')!.instances.get('m_0_1')?.group, 'm_0');
  assert.equal(live.stateLog.last()?.state, 'loading');
});

test('a rejected request leaves the queue count and is kept with its reason', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  live.apply(queued('r1', 1100));
  live.apply({ type: 'request.rejected', ...base, t: 1200, request_id: 'r1', reason: 'timeout', message: 'Request timeout expired', priority: 1 });
  assert.equal(live.models.get('m:1')!.queued.get(1), 0);
  assert.equal(live.finished.last()?.reason, 'timeout');
  // refused at enqueue: never queued, count must not go negative or change
  live.apply({ type: 'request.rejected', ...base, t: 1300, request_id: 'r9', reason: 'queue_full', message: 'Exceeds maximum queue size', priority: 1 });
  assert.equal(live.models.get('m:1')!.queued.get(1), 0);
});

test('config.changed patches the model config by dotted and indexed paths', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  live.apply({ type: 'config.changed', ...base, t: 2000, by: 'dashboard:x', changes: [
    { path: 'dynamic_batching.max_queue_delay_microseconds', old: 100, new: 5000 },
    { path: 'instance_group[0].count', old: 1, new: 3 },
  ] });
  const cfg = live.models.get('m:1')!.config as { dynamic_batching: { max_queue_delay_microseconds: number }; instance_group: { count: number }[] };
  assert.equal(cfg.dynamic_batching.max_queue_delay_microseconds, 5000);
  assert.equal(cfg.instance_group[0].count, 3);
  assert.equal(live.configLog.last()?.by, 'dashboard:x');
});

test('frames count sequence gaps and sampled-away events; stats repair queue depth', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  const frame = (seq: number, dropped = 0): Frame => ({ seq, t: 5000 + seq, events: [queued(`q${seq}`, 5000 + seq)], dropped });
  live.applyFrame(frame(1));
  live.applyFrame(frame(2, 7));
  live.applyFrame(frame(5));
  assert.equal(live.seqGaps, 1);
  assert.equal(live.droppedEvents, 7);
  assert.equal(live.models.get('m:1')!.queued.get(1), 3);
  const stats: StatsMessage = { t: 6000, wall_ms: 1, models: [{
    model: 'm', version: '1', window_s: 1, throughput_per_s: 100, requests_per_s: 100, latency_us: { p50: 1, p90: 2, p99: 3, mean: 1 },
    queue_us_mean: 1, compute_us_mean: 1, avg_batch_size: 2, batch_size_histogram: { 2: 5 }, queue_depth: { 1: 1 }, in_flight: 1,
    totals: { completed: 1, rejected: 0, failed: 0, batches: 1 }, memory_bytes: 0,
  }] };
  live.applyStats(stats);
  assert.equal(live.models.get('m:1')!.queued.get(1), 1);
  assert.equal(live.perfPoints.last()?.config, 'd=100µs mb=8 ×1');
  live.applyStats(stats); // the same message twice (snapshot + stats) is counted once
  assert.equal(live.stats.length, 1);
});

test('in-flight tracking is bounded when completions are lost to sampling', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  for (let i = 0; i < 20_500; i++) live.apply(queued(`r${i}`, 2000 + i));
  assert.equal(live.requests.size, 20_000);
  assert.equal(live.requests.has('m:1/r0'), false);
});

test('ring buffer keeps the newest items and finds a time range', () => {
  const r = new Ring<number>(3);
  for (const x of [1, 2, 3, 4, 5]) r.push(x);
  assert.deepEqual(r.toArray(), [3, 4, 5]);
  assert.deepEqual(r.since(4, (x) => x), [4, 5]);
  assert.equal(r.last(), 5);
  assert.throws(() => new Ring(0), /positive integer/);
});

test('a batch handed to a busy instance (next_on) shows as its next batch until it starts, then as running', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  lifecycle(live); // b1 running on m_0_0
  live.apply(queued('r3', 1320));
  live.apply({ type: 'batch.formed', ...base, t: 1330, batch_id: 'b2', request_ids: ['r3'], size: 1, trigger: 'delay', oldest_wait_us: 10, next_on: 'm_0_0' });
  const inst = live.models.get('m:1')!.instances.get('m_0_0')!;
  assert.deepEqual([inst.state, inst.batchId, inst.nextBatchId, inst.nextSize], ['busy', 'b1', 'b2', 1]);
  assert.equal(live.requests.get('m:1/r3')?.phase, 'batched', 'waits at the instance, not running yet');
  live.apply({ type: 'batch.completed', ...base, t: 1400, batch_id: 'b1', instance: 'm_0_0', size: 2, compute_us: 90, ok: true });
  live.apply({ type: 'batch.started', ...base, t: 1400, batch_id: 'b2', instance: 'm_0_0', size: 1 });
  assert.deepEqual([inst.state, inst.batchId, inst.nextBatchId, inst.nextSize], ['busy', 'b2', undefined, undefined]);
  assert.equal(live.requests.get('m:1/r3')?.phase, 'running');
});

test('a reconnect to a restarted server keeps the history on the new clock and marks the restart', () => {
  const live = new LiveModel();
  const stat = (t: number, wall: number): StatsMessage => ({ t, wall_ms: wall, models: [] });
  // first process: its clock read 50 s when the wall clock read 1,000 s
  const first = { ...snapshot(), t: 50e6, wall_ms: 1_000_000 };
  first.server = { ...first.server, start_id: 'one', started_wall_ms: 950_000 };
  assert.equal(live.applySnapshot(first), false, 'the first snapshot is no restart');
  live.applyStats(stat(51e6, 1_001_000));
  live.applyStats(stat(52e6, 1_002_000));
  assert.equal(live.applySnapshot({ ...first, t: 53e6, wall_ms: 1_003_000 }), false, 'a resync to the same process is no restart');
  // the second process started at wall 1,010 s and its clock reads 5 s at wall 1,015 s
  const second = { ...snapshot(), t: 5e6, wall_ms: 1_015_000, history: { stats: [stat(4e6, 1_014_000)], config_changes: [] } };
  second.server = { ...second.server, start_id: 'two', started_wall_ms: 1_010_000 };
  assert.equal(live.applySnapshot(second), true);
  const ts = live.stats.toArray().map((s) => s.t);
  // wall 1,001 s and 1,002 s on the new clock (zero at wall 1,010 s): -9 s and -8 s, then the new history
  assert.deepEqual(ts, [-9e6, -8e6, 4e6], 'old history kept before the new one, in order');
  assert.deepEqual(live.restarts.toArray().map((r) => [r.t, r.startId]), [[0, 'two']], 'the marker sits at the new process\'s start');
  assert.equal(live.now, 5e6, 'now follows the new clock');
});

test('a restarted server that has not sampled stats yet (empty history) does not wipe the history carried over', () => {
  const live = new LiveModel();
  const first = { ...snapshot(), t: 50e6, wall_ms: 1_000_000 };
  first.server = { ...first.server, start_id: 'one', started_wall_ms: 950_000 };
  live.applySnapshot(first);
  live.applyStats({ t: 51e6, wall_ms: 1_001_000, models: [] });
  live.applyStats({ t: 52e6, wall_ms: 1_002_000, models: [] });
  const second = { ...snapshot(), t: 1e5, wall_ms: 1_010_100, history: { stats: [], config_changes: [] } };
  second.server = { ...second.server, start_id: 'two', started_wall_ms: 1_010_000 };
  assert.equal(live.applySnapshot(second), true);
  assert.deepEqual(live.stats.toArray().map((s) => s.t), [-9e6, -8e6], 'the old process\'s history, on the new clock');
});

test('a server without a start id keeps the old behaviour: a history older than what is held replaces it', () => {
  const live = new LiveModel();
  live.applySnapshot({ ...snapshot(), t: 50e6 });
  live.applyStats({ t: 51e6, wall_ms: 1, models: [] });
  assert.equal(live.applySnapshot({ ...snapshot(), t: 5e6, history: { stats: [{ t: 4e6, wall_ms: 2, models: [] }], config_changes: [] } }), false);
  assert.deepEqual(live.stats.toArray().map((s) => s.t), [4e6]);
  assert.equal(live.restarts.length, 0);
});

test('the autotuner: the snapshot says it runs, its change keeps its reason and tells a dashboard that did not switch it on', () => {
  const live = new LiveModel();
  const s = snapshot();
  const off = autotuneReport(false, { state: 'off', target_us: 2000 });
  s.models[0].autotune = off;
  live.applySnapshot(s);
  assert.deepEqual(live.models.get('m:1')?.autotune, off);
  const reason = { why: 'least compute per request predicted within target', target_us: 3000, measured_p99_us: 1800, rate_per_s: 9000, avg_batch: 12.5, predicted_p99_us: 2500, predicted_compute_us: 40 };
  live.apply({ type: 'config.changed', ...base, t: 2000, by: 'autotune', reason, changes: [{ path: 'dynamic_batching.max_queue_delay_microseconds', old: 100, new: 600 }] });
  assert.deepEqual(live.configLog.last()?.reason, reason);
  const tuned = live.models.get('m:1')?.autotune;
  assert.deepEqual([tuned?.enabled, tuned?.target_us, tuned?.last, tuned?.status.state], [true, 3000, reason, 'measuring']);
  // a person's change carries no reason and leaves the tuner's status alone
  live.apply({ type: 'config.changed', ...base, t: 2100, by: 'dashboard:x', changes: [{ path: 'dynamic_batching.max_queue_delay_microseconds', old: 600, new: 700 }] });
  assert.equal(live.configLog.last()?.reason, undefined);
  assert.equal(live.models.get('m:1')?.autotune?.enabled, true);
  // the status moves without a config change: each stats message carries it
  const notMet = autotuneReport(true, { state: 'not_met', target_us: 3000, delay_us: 600, best_p99_us: 41_000, limit: 'compute', advice: 'limited by compute: add an instance or raise the target' }, reason);
  live.applyStats({ t: 3000, wall_ms: 0, models: [], autotune: [{ model: 'm', version: '1', ...notMet }] });
  assert.deepEqual(live.models.get('m:1')?.autotune, notMet);
  assert.match(notMet.text, /target not met: best p99 ≈ 41 ms .*add an instance or raise the target/);
  const rev = live.structureRev;
  const restored = autotuneReport(false, { state: 'restored', target_us: 3000, restored: { max_queue_delay_microseconds: 100, preferred_batch_size: [8], instances_removed: 0 }, text: 'restored delay 100 µs, preferred sizes [8]' });
  live.setAutotune('m:1', restored);
  assert.equal(live.models.get('m:1')?.autotune?.enabled, false);
  assert.equal(live.models.get('m:1')?.autotune?.status.state, 'restored');
  assert.ok(live.structureRev > rev, 'switching re-renders the controls');
});

test('sparse traffic: queue samples show the queue as it stood between requests, not at each arrival', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot());
  live.queueSampleUs = 50_000;
  // a request every 250 ms, queued and batched within half a millisecond: the queue is empty nearly always
  for (let i = 0; i < 8; i++) {
    const t = 10_000 + i * 250_000;
    live.apply(queued(`r${i}`, t));
    live.apply({ type: 'batch.formed', ...base, t: t + 400, batch_id: `b${i}`, request_ids: [`r${i}`], size: 1, trigger: 'delay', oldest_wait_us: 400 });
  }
  const depths = live.queueSamples.toArray().map((s) => s.depth[1] ?? 0);
  assert.ok(depths.length >= 7, `${depths.length} samples`);
  assert.deepEqual([...new Set(depths)], [0], `samples ${depths.join(',')}`);
});
