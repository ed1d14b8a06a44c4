/**
 * Teaching mode simulates with the shipped calibration unless the teacher chooses this server's own, and
 * then only when the server has one for every lesson model: an experiment never mixes live and shipped costs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calibrationFromBatches, baseLatencyUs } from '@inferscope/core/sim';
import { calibrationFor, calibrationInUse, calibrationStore, dropLiveCalibrations, hasLiveServer, loadLiveCalibrations, modelsWithoutLive } from '../src/teach/calibrations';
import { appStore } from '../src/store/app-store';
import { measuredCost } from '../src/teach/models';

const live = calibrationFromBatches(
  Array.from({ length: 60 }, (_, i) => ({ size: 1 + (i % 3), us: 1000 + 100 * (1 + (i % 3)) })),
  { model: 'mlp_classifier', version: '1', backend: 'onnxruntime', kind: 'KIND_CPU', host: { cpus: 2, platform: 't', runtime: 't' }, measured_at: '2026-12-01T12:00:00Z' },
);

test("live calibrations are used only when chosen and complete; one model without one keeps every model on the shipped tables", async () => {
  const asked: string[] = [];
  const other = { ...live, model: 'text_encoder' };
  const v2 = { ...live, version: '2', table_us: { '1': 1 } };
  const got = await loadLiveCalibrations(['mlp_classifier', 'cnn_classifier'], async (url) => {
    asked.push(url);
    return { status: 200, json: async () => ({ calibrations: [v2, live, other, { format: 'bad' }], unavailable: [{ model: 'cnn_classifier', version: '1', reason: 'no batches yet' }] }) };
  });
  assert.deepEqual(got, ['mlp_classifier'], 'only the models asked for, and only fitted ones');
  assert.deepEqual(asked, ['/v2/calibration']);
  try {
    assert.equal(calibrationFor('mlp_classifier')?.source, 'bundled', 'the shipped calibration is the default, live data or not');
    appStore.setState({ cal: 'server' });
    assert.deepEqual(modelsWithoutLive(), ['cnn_classifier', 'mlp_classifier_torch']);
    assert.equal(calibrationInUse(), 'bundled');
    assert.equal(calibrationFor('mlp_classifier')?.source, 'bundled', 'never live for one model and shipped for another');
    const all = Object.fromEntries(['mlp_classifier', 'cnn_classifier', 'mlp_classifier_torch'].map((m) => [m, { ...live, model: m }]));
    calibrationStore.setState((s) => ({ version: s.version + 1, live: all }));
    assert.equal(calibrationInUse(), 'live');
    assert.equal(calibrationFor('cnn_classifier')?.source, 'live');
    assert.equal(baseLatencyUs(measuredCost('mlp_classifier', 'server', 0), 2), 1200, 'the simulator now uses the live table');
    const v = calibrationStore.getState().version;
    appStore.setState({ cal: undefined });
    assert.notEqual(calibrationStore.getState().version, v, 'a change of choice re-runs what depends on costs');
    assert.equal(calibrationFor('mlp_classifier')?.source, 'bundled');
    appStore.setState({ cal: 'server' });
    dropLiveCalibrations();
    assert.equal(calibrationFor('mlp_classifier')?.source, 'bundled');
    assert.notEqual(baseLatencyUs(measuredCost('mlp_classifier', 'server', 0), 2), 1200);
  } finally {
    appStore.setState({ cal: undefined });
    dropLiveCalibrations();
  }
});

test('a reply that is not a calibration, or no server, keeps the shipped figures', async () => {
  assert.deepEqual(await loadLiveCalibrations(['mlp_classifier'], async () => ({ status: 200, json: async () => ({ calibrations: [{ format: 'something else' }] }) })), []);
  assert.deepEqual(await loadLiveCalibrations(['mlp_classifier'], async () => { throw new Error('connection refused'); }), []);
  assert.equal(calibrationFor('mlp_classifier')?.source, 'bundled');
  assert.equal(hasLiveServer(), false, 'this page never saw a live server');
});
