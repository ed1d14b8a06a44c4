/**
 * The calibrated simulator: the shipped tables describe the bundled models (memory-bound MLP,
 * compute-bound CNN), the linear fit matches the table it came from, CPU instances beyond the cores share
 * them, and `simulate` with calibrations shows batching pay for the MLP and not for the CNN's compute.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BUNDLED_CALIBRATIONS, batchingGain, bundledCalibration, calibratedCost, CpuHost, fitLinear, simulate, validateCalibration, CalibrationError,
} from '@inferscope/core/sim';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler';
import type { Scenario } from '@inferscope/core/load';

test('every bundled model has a calibration measured at batch 1..64, increasing with the batch', () => {
  for (const m of ['mlp_classifier', 'cnn_classifier', 'text_encoder']) {
    const c = bundledCalibration(m);
    assert.ok(c, `${m} has a calibration`);
    assert.equal(c.backend, 'onnxruntime');
    assert.ok(c.table_us['1'] > 0 && c.table_us['64'] > c.table_us['1'], `${m}: batch 64 costs more than batch 1`);
    assert.ok(c.host.cpus >= 1);
  }
  assert.equal(BUNDLED_CALIBRATIONS.length, 4);
});

test('the same MLP weights on PyTorch (TorchScript) are calibrated too: close to onnxruntime at batch 1, slower in batches of several', () => {
  const ort = bundledCalibration('mlp_classifier')!;
  const torch = bundledCalibration('mlp_classifier_torch')!;
  assert.equal(torch.backend, 'pytorch');
  assert.equal(bundledCalibration('mlp_classifier_torch', 'onnxruntime'), undefined);
  const ratio = (b: number) => torch.session_us![String(b)] / ort.session_us![String(b)];
  assert.ok(ratio(1) > 0.6 && ratio(1) < 1.6, `batch 1: torch/ort ${ratio(1)}`);
  // Quiet-machine runs (three on 2026-12-01 ~21:00 UTC) gave 1.65-1.7x at 8, 1.14x at 32, 0.9x at 64:
  // onnxruntime's kernels lead in mid-size batches; the largest ones are level again.
  assert.ok(ratio(8) > 1.3, `batch 8: torch/ort ${ratio(8)}`);
  // through the server the stub's process hop comes on top: torch costs more per batch at every size
  for (const b of ['1', '8', '32']) assert.ok(torch.table_us[b] > ort.table_us[b], `batch ${b}`);
});

test('the backend alone: the MLP is memory-bound (batching gain >= 3x), the CNN compute-bound (<= 1.3x)', () => {
  const mlp = bundledCalibration('mlp_classifier')!;
  const cnn = bundledCalibration('cnn_classifier')!;
  assert.ok(batchingGain(mlp, 32, 'session_us') >= 3, `MLP session gain ${batchingGain(mlp, 32, 'session_us')}`);
  assert.ok(batchingGain(cnn, 32, 'session_us') <= 1.3, `CNN session gain ${batchingGain(cnn, 32, 'session_us')}`);
});

test('fitLinear recovers fixed + per item from an exact line, and validateCalibration names what is wrong', () => {
  assert.deepEqual(fitLinear({ 1: 110, 2: 120, 8: 180, 64: 740 }), { fixed_us: 100, per_item_us: 10 });
  assert.throws(() => validateCalibration({ format: 'x', model: '', table_us: { 0: -1 } }), (e: Error) =>
    e instanceof CalibrationError && /format/.test(e.message) && /model/.test(e.message) && /table_us\.0/.test(e.message));
});

test('CpuHost: n busy instances on c cores run at min(1, c/n) speed', () => {
  const host = new CpuHost(2);
  assert.equal(host.begin(), 1);
  assert.equal(host.begin(), 1);
  assert.equal(host.begin(), 1.5);
  assert.equal(host.begin(), 2);
  host.end();
  host.end();
  assert.equal(host.busy, 2);
  assert.equal(new CpuHost().begin(), 1);
  assert.throws(() => new CpuHost(0));
});

const cnnConfig = (count: number): SchedulerConfigInput => ({ name: 'cnn_classifier', max_batch_size: 16, dynamic_batching: { max_queue_delay_microseconds: 1000 }, instance_group: [{ kind: 'KIND_CPU', count }] });
const overload: Scenario = { name: 'overload', seed: 3, phases: [{ type: 'poisson', rate: 40000, duration_s: 0.5 }] };

test('instances help up to the cores and then stop (2 cores: 4 instances ~ 2 instances)', () => {
  const run = (count: number) => simulate({ scenario: overload, configs: cnnConfig(count), cost: calibratedCost('cnn_classifier')!, cores: 2, record: false }).summary.throughput_per_s;
  const [one, two, four] = [run(1), run(2), run(4)];
  assert.ok(two / one > 1.8, `2 instances: ${two / one}x`);
  assert.ok(four / two < 1.1, `4 instances on 2 cores: ${four / two}x of 2`);
  // without a host (no contention) the same config scales with the instances: the limit is the host's
  const free = simulate({ scenario: overload, configs: cnnConfig(4), cost: calibratedCost('cnn_classifier')!, record: false }).summary.throughput_per_s;
  assert.ok(free / two > 1.8);
});

test('with calibrated costs, batching multiplies the MLP throughput at an overload', () => {
  const mlp = (db: boolean): SchedulerConfigInput => ({ name: 'mlp_classifier', max_batch_size: 32, ...(db ? { dynamic_batching: {} } : {}), instance_group: [{ kind: 'KIND_CPU', count: 1 }] });
  const run = (db: boolean) => simulate({ scenario: overload, configs: mlp(db), cost: calibratedCost('mlp_classifier')!, cores: 2, record: false }).summary.throughput_per_s;
  assert.ok(run(true) / run(false) >= 3, `MLP on/off ${run(true) / run(false)}`);
});
