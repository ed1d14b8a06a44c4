/**
 * The cost-model fit from batch records (fitBatchRecords) and the live calibration built on it (BatchLog):
 * synthetic records and events, no clock, no timing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerEvent } from '../events';
import { Rng } from '../load/rng';
import { fitBatchRecords, FitError, type BatchRecord } from './fit-batches';
import { BatchLog, calibrationFromBatches } from './live-calibration';
import { CalibrationError, costFromCalibration, validateCalibration } from './calibration-cost';
import { baseLatencyUs, latencyUs } from './cost-model';
import { EmpiricalDistribution, quantilesOf } from './distribution';

/** batches costing fixed + perItem x size, times a factor drawn from [0.9, 1.1] and one slow batch in 50 */
function synthetic(fixed: number, perItem: number, sizes: number[], each: number, seed = 3): BatchRecord[] {
  const rng = new Rng(seed);
  const out: BatchRecord[] = [];
  for (const size of sizes) for (let i = 0; i < each; i++) {
    const f = i % 50 === 49 ? 4 : 0.9 + 0.2 * rng.next();
    out.push({ size, us: (fixed + perItem * size) * f });
  }
  return out;
}

test('fitBatchRecords recovers fixed and per-item cost, the spread of the records and their interruptions', () => {
  const f = fitBatchRecords(synthetic(200, 10, [1, 2, 4, 8, 16, 32], 100));
  assert.deepEqual(Object.keys(f.table_us), ['1', '2', '4', '8', '16', '32']);
  assert.ok(Math.abs(f.fit.fixed_us - 200) < 10, `fixed ${f.fit.fixed_us}`);
  assert.ok(Math.abs(f.fit.per_item_us - 10) < 0.6, `per item ${f.fit.per_item_us}`);
  assert.ok(Math.abs(f.table_us['8'] - 280) < 10, `median at 8: ${f.table_us['8']}`);
  // the spread is time / median of the batches that were not interrupted: ~1 in the middle, +-10% at most
  assert.ok(Math.abs(f.spread['0.5'] - 1) < 0.02);
  assert.ok(f.spread['0.1'] >= 0.88 && f.spread['0.9'] <= 1.12);
  assert.ok(f.spread['1'] <= 1.12, `max ratio ${f.spread['1']}`);
  // the slow batches (4x, 1 in 50) are interruptions: µs added, at a rate per second of batch time
  const i = f.interruptions!;
  const spanS = synthetic(200, 10, [1, 2, 4, 8, 16, 32], 100).reduce((a, r) => a + r.us, 0) / 1e6;
  assert.ok(Math.abs(i.rate_per_s - 12 / spanS) < 0.01, `rate ${i.rate_per_s} vs ${12 / spanS}`);
  assert.ok(i.duration_us['0'] > 550 && i.duration_us['1'] < 1600, `3x a median of 210-520 µs: ${JSON.stringify(i.duration_us)}`);
  assert.equal(f.batches, 600);
});

test('an interruption is time, not a factor: a short batch is not stretched by a long one\'s tail', () => {
  // one in 20 batches of every size is 1 ms late (a thread descheduled), whatever its length
  const recs: BatchRecord[] = [];
  for (const [size, us] of [[1, 130], [16, 2000]] as const) for (let i = 0; i < 400; i++) recs.push({ size, us: i % 20 === 0 ? us + 1000 : us });
  const f = fitBatchRecords(recs);
  assert.equal(f.spread['1'], 1, 'no interrupted batch left in the spread');
  assert.equal(f.interruptions!.duration_us['0.5'], 1000);
  const cost = { table: f.table_us, spread: f.spread, interruptions: f.interruptions };
  const rng = new Rng(5);
  const draws = (size: number) => Array.from({ length: 20_000 }, () => latencyUs(cost, size, rng));
  for (const [size, median] of [[1, 130], [16, 2000]] as const) {
    const d = draws(size);
    const late = d.filter((x) => x > median + 500);
    assert.ok(late.every((x) => x >= median + 900 && x <= median + 2100), `size ${size}: interruptions add ~1 ms each`);
    // hit in proportion to the batch's length: the measured rate is per second of batch time
    const expected = 1 - Math.exp(-f.interruptions!.rate_per_s * median / 1e6);
    assert.ok(Math.abs(late.length / d.length - expected) < 0.25 * expected + 0.002, `size ${size}: ${late.length / d.length} hit vs ${expected}`);
  }
});

test('sizes with too few batches are left out, and nothing to fit is a clear error', () => {
  const recs = [...synthetic(100, 5, [1, 4], 20), ...synthetic(100, 5, [9], 3)];
  const f = fitBatchRecords(recs, 5);
  assert.deepEqual(Object.keys(f.table_us), ['1', '4']);
  assert.equal(f.counts['4'], 20);
  assert.throws(() => fitBatchRecords(synthetic(100, 5, [3], 4), 5), FitError);
  // malformed records are skipped, not fitted
  assert.throws(() => fitBatchRecords([{ size: 0, us: 10 }, { size: 2, us: NaN }, { size: 2, us: -1 }], 1), FitError);
});

test('a live calibration is a valid calibration whose cost model reproduces the records', () => {
  const cal = calibrationFromBatches(synthetic(150, 8, [1, 2, 3, 4, 6, 8], 40), {
    model: 'm', version: '2', backend: 'onnxruntime', kind: 'KIND_CPU', host: { cpus: 2, platform: 'test', runtime: 'test' }, measured_at: '2026-12-01', instances: 1,
  });
  assert.equal(validateCalibration(cal), cal);
  assert.equal(cal.source, 'live');
  assert.equal(cal.version, '2');
  const cost = costFromCalibration(cal);
  assert.ok(Math.abs(baseLatencyUs(cost, 4) - 182) < 8);
  // beyond the largest size the traffic formed, the fitted slope carries on (not the noisy end segment)
  assert.ok(Math.abs(baseLatencyUs(cost, 32) - (cal.table_us['8'] + cal.fit.per_item_us * 24)) < 1e-9);
  // each batch draws from the measured spread: the mean of many draws is the table times the spread's mean
  const rng = new Rng(1);
  let sum = 0;
  for (let i = 0; i < 20_000; i++) sum += latencyUs(cost, 4, rng);
  const expected = baseLatencyUs(cost, 4) * new EmpiricalDistribution(cal.spread!).mean();
  assert.ok(Math.abs(sum / 20_000 - expected) / expected < 0.03, `mean ${sum / 20_000} vs ${expected}`);
  assert.throws(() => calibrationFromBatches([], { model: 'm', version: '1', backend: 'x', kind: 'KIND_CPU', host: { cpus: 1, platform: '', runtime: '' }, measured_at: '' }), CalibrationError);
});

test('a live calibration leaves out sizes the traffic rarely formed (a burst after a stall carries the stall)', () => {
  const common = synthetic(200, 10, [1, 2, 3, 4], 200);
  const stalled = Array.from({ length: 8 }, () => ({ size: 30, us: 20_000 }));
  const meta = { model: 'm', version: '1', backend: 'b', kind: 'KIND_CPU', host: { cpus: 2, platform: '', runtime: '' }, measured_at: '' };
  const cal = calibrationFromBatches([...common, ...stalled], meta);
  assert.deepEqual(Object.keys(cal.table_us), ['1', '2', '3', '4'], '8 of 808 batches is under the 2% share');
  assert.ok(Math.abs(baseLatencyUs(costFromCalibration(cal), 30) - (cal.table_us['4'] + 26 * cal.fit.per_item_us)) < 1e-9, 'the fitted slope covers size 30');
  assert.ok(cal.fit.per_item_us > 5 && cal.fit.per_item_us < 15, `per item ${cal.fit.per_item_us}`);
});

test('BatchLog keeps batches per version and instance kind from the event stream, bounded', () => {
  const log = new BatchLog(100);
  const base = { t: 0, model: 'm', version: '1' };
  const ev: SchedulerEvent[] = [
    { ...base, type: 'instance.state', instance: 'g_cpu_0', kind: 'KIND_CPU', device: 'cpu', state: 'idle' },
    { ...base, type: 'instance.state', instance: 'g_gpu_0', kind: 'KIND_GPU', device: 'gpu0', state: 'idle' },
  ];
  for (let i = 0; i < 150; i++) ev.push({ ...base, type: 'batch.completed', batch_id: `b${i}`, instance: 'g_cpu_0', size: 1 + (i % 3), compute_us: 100 + 10 * (1 + (i % 3)), ok: true });
  for (let i = 0; i < 10; i++) ev.push({ ...base, type: 'batch.completed', batch_id: `g${i}`, instance: 'g_gpu_0', size: 4, compute_us: 50, ok: true });
  ev.push({ ...base, type: 'batch.completed', batch_id: 'bad', instance: 'g_cpu_0', size: 2, compute_us: 99999, ok: false, error: 'x' });
  ev.push({ ...base, version: '2', type: 'batch.completed', batch_id: 'v2', instance: 'g_cpu_0', size: 1, compute_us: 1, ok: true });
  for (const e of ev) log.add(e);
  assert.equal(log.batches('m', '1', 'KIND_CPU'), 100, 'the log keeps the last `capacity` batches');
  assert.equal(log.batches('m', '1', 'KIND_GPU'), 10);
  assert.deepEqual(log.kindsOf('m', '1'), ['KIND_CPU', 'KIND_GPU']);
  const host = { cpus: 2, platform: 'p', runtime: 'r' };
  const cpu = log.calibration({ model: 'm', version: '1', backend: 'onnxruntime', host, measured_at: 'now' });
  assert.equal(cpu.kind, 'KIND_CPU');
  assert.deepEqual(cpu.table_us, { '1': 110, '2': 120, '3': 130 }, 'failed batches are not fitted');
  assert.equal(cpu.fit.per_item_us, 10);
  assert.equal(cpu.fit.fixed_us, 100);
  const gpu = log.calibration({ model: 'm', version: '1', backend: 'onnxruntime', host, measured_at: 'now', kind: 'KIND_GPU' });
  assert.deepEqual(gpu.table_us, { '4': 50 });
  log.forget('m', '1');
  assert.throws(() => log.calibration({ model: 'm', version: '1', backend: 'onnxruntime', host, measured_at: 'now' }), /no batches yet/);
});

test('quantilesOf and the empirical distribution invert each other', () => {
  const xs = Array.from({ length: 1000 }, (_, i) => i + 1);
  const q = quantilesOf(xs);
  assert.equal(q['0'], 1);
  assert.equal(q['0.5'], 500);
  assert.equal(q['1'], 1000);
  const d = new EmpiricalDistribution(q);
  assert.equal(d.at(0.5), 500);
  assert.ok(Math.abs(d.at(0.3) - 300) < 3);
  assert.ok(Math.abs(d.mean() - 500.5) < 3);
});
