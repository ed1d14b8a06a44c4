import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScannedModel } from '../repository/scan';
import { modelsToLoadAtStart, pollChanges } from './repository-sync';

const model = (name: string, fingerprint: string, configText = `name: "${name}"\nbackend: "onnxruntime"`): ScannedModel =>
  ({ name, repository: '/r', dir: `/r/${name}`, configText, versions: [], ignored: [], fingerprint });
const scanOf = (...models: ScannedModel[]) => new Map(models.map((m) => [m.name, m]));

test('at start: every model, or in explicit mode the ones named (* = all); ensembles after the models they run', () => {
  const models = scanOf(model('pipe', 'a', 'name: "pipe"\nplatform: "ensemble"'), model('mlp', 'b'), model('cnn', 'c'));
  assert.deepEqual(modelsToLoadAtStart(models, 'none'), ['mlp', 'cnn', 'pipe']);
  assert.deepEqual(modelsToLoadAtStart(models, 'poll', ['mlp']), ['mlp', 'cnn', 'pipe']);
  assert.deepEqual(modelsToLoadAtStart(models, 'explicit'), []);
  assert.deepEqual(modelsToLoadAtStart(models, 'explicit', ['pipe', 'missing', 'cnn']), ['missing', 'cnn', 'pipe']);
  assert.deepEqual(modelsToLoadAtStart(models, 'explicit', ['*']), ['mlp', 'cnn', 'pipe']);
});

test('a poll: added, modified and removed against what was known when it began; a save during the scan stands over the older file it scanned', () => {
  const before = new Map([['kept', '1'], ['edited', '1'], ['saved', '1'], ['gone', '1']]);
  const saved = model('saved', '2'); // written by a save while the scan ran
  const scanned = scanOf(model('kept', '1'), model('edited', '2'), model('saved', '1'), model('new', '1'));
  const diff = pollChanges(before, scanOf(model('kept', '1'), model('edited', '1'), saved, model('gone', '1')), scanned);
  assert.deepEqual([diff.added, diff.modified, diff.removed], [['new'], ['edited'], ['gone']]);
  assert.equal(scanned.get('saved'), saved, 'the save\'s view is what the poll keeps');
  assert.equal(before.get('saved'), '1', 'the caller\'s map is not changed');
});
