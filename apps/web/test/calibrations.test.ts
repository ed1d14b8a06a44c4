/** Teaching mode takes a live server's own calibration when it has one and keeps the shipped one otherwise. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calibrationFromBatches, baseLatencyUs } from '@inferscope/core/sim';
import { calibrationFor, calibrationStore, dropLiveCalibrations, hasLiveServer, loadLiveCalibrations } from '../src/teach/calibrations';
import { measuredCost } from '../src/teach/models';

const live = calibrationFromBatches(
  Array.from({ length: 60 }, (_, i) => ({ size: 1 + (i % 3), us: 1000 + 100 * (1 + (i % 3)) })),
  { model: 'mlp_classifier', version: '1', backend: 'onnxruntime', kind: 'KIND_CPU', host: { cpus: 2, platform: 't', runtime: 't' }, measured_at: '2026-12-01T12:00:00Z' },
);

test('a live calibration replaces the shipped one for its model only, and dropping it restores the shipped one', async () => {
  const asked: string[] = [];
  const other = { ...live, model: 'text_encoder' };
  const v2 = { ...live, version: '2', table_us: { '1': 1 } };
  const got = await loadLiveCalibrations(['mlp_classifier', 'cnn_classifier'], async (url) => {
    asked.push(url);
    return { status: 200, json: async () => ({ calibrations: [v2, live, other, { format: 'bad' }], unavailable: [{ model: 'cnn_classifier', version: '1', reason: 'no batches yet' }] }) };
  });
  assert.deepEqual(got, ['mlp_classifier'], 'only the models asked for, and only fitted ones');
  assert.deepEqual(asked, ['/v2/calibration']);
  assert.equal(calibrationFor('mlp_classifier')?.source, 'live');
  assert.equal(calibrationFor('cnn_classifier')?.source, 'bundled');
  assert.equal(baseLatencyUs(measuredCost('mlp_classifier', 'server', 0), 2), 1200, 'the simulator now uses the live table');
  const v = calibrationStore.getState().version;
  await loadLiveCalibrations(['mlp_classifier'], async () => ({ status: 200, json: async () => ({ calibrations: [live] }) }));
  assert.equal(calibrationStore.getState().version, v, 'the same calibration again changes nothing');
  dropLiveCalibrations();
  assert.equal(calibrationFor('mlp_classifier')?.source, 'bundled');
  assert.notEqual(baseLatencyUs(measuredCost('mlp_classifier', 'server', 0), 2), 1200);
});

test('a reply that is not a calibration, or no server, keeps the shipped figures', async () => {
  assert.deepEqual(await loadLiveCalibrations(['mlp_classifier'], async () => ({ status: 200, json: async () => ({ calibrations: [{ format: 'something else' }] }) })), []);
  assert.deepEqual(await loadLiveCalibrations(['mlp_classifier'], async () => { throw new Error('connection refused'); }), []);
  assert.equal(calibrationFor('mlp_classifier')?.source, 'bundled');
  assert.equal(hasLiveServer(), false, 'this page never saw a live server');
});
