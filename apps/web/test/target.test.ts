import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultTarget } from '../src/controls/target.ts';
import { detailLine } from '../src/controls/AckLog.tsx';
import type { ModelLive } from '../src/store/live-types.ts';

const model = (name: string, version: string, maxBatch: number, batching = true, state = 'READY') =>
  ({ key: `${name}:${version}`, name, version, state, config: { max_batch_size: maxBatch, ...(batching ? { dynamic_batching: {} } : {}) } }) as unknown as ModelLive;

const models = [model('cnn_classifier', '1', 16), model('ensemble_x', '1', 0, false), model('mlp_classifier', '1', 64), model('mlp_classifier', '2', 64), model('text_encoder', '1', 8)];

test('default target: the model with traffic wins', () => {
  const rates: Record<string, number> = { 'text_encoder:1': 12, 'cnn_classifier:1': 3 };
  const source = { latestAggregate: (k: string) => (k in rates ? ({ requests_per_s: rates[k] } as never) : undefined) };
  assert.equal(defaultTarget(source, models)?.key, 'text_encoder:1');
});

test('default target without traffic: the batching model with the largest batches, latest version, never the alphabetical first', () => {
  const source = { latestAggregate: () => undefined };
  assert.equal(defaultTarget(source, models)?.key, 'mlp_classifier:2');
  assert.equal(defaultTarget(source, [model('a', '1', 0, false)])?.key, 'a:1', 'falls back to the first model');
});

test('answers read as text: a stopped run by its id, not [object Object]', () => {
  assert.equal(detailLine({ stopped: [{ id: 'load-3', state: 'stopped' }], backup: null }), 'stopped: load-3');
});

test('control answers read as words, not JSON', async () => {
  const { readableFields } = await import('../src/store/app-store.ts');
  assert.equal(readableFields({ model: 'mlp_classifier', version: '1', dryRun: true, preferred_batch_size: [8, 16], skip: undefined }), 'model mlp_classifier · version 1 · dryRun true · preferred_batch_size [8, 16]');
});
