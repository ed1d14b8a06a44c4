import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, expectOne, issuesOf } from './test-helpers';

const io = `
input { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] }
output { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] }`;
const ensemble = (steps: string, extra = '') =>
  issuesOf(`name: "m" platform: "ensemble" max_batch_size: 8 ${io} ensemble_scheduling { ${steps} } ${extra}`);
const step = (model: string, inputs: Record<string, string>, outputs: Record<string, string>) =>
  `step { model_name: "${model}" model_version: -1 ` +
  Object.entries(inputs).map(([k, v]) => `input_map { key: "${k}" value: "${v}" } `).join('') +
  Object.entries(outputs).map(([k, v]) => `output_map { key: "${k}" value: "${v}" } `).join('') + '}';

test('ensemble: a two-step pipeline from input to output is valid', () => {
  assert.deepEqual(ensemble(step('a', { x: 'IN' }, { y: 'MID' }) + step('b', { x: 'MID' }, { y: 'OUT' })), []);
});

test('ensemble: scheduling only with platform ensemble, with a hint', () => {
  const issue = expectOne(issuesOf(`${BASE} ensemble_scheduling { ${step('a', { x: 'IN' }, { y: 'OUT' })} }`),
    "ensemble scheduling cannot be set for model 'm' whose platform is not ensemble");
  assert.match(issue.hint ?? '', /platform: "ensemble"/);
});

test('ensemble: platform ensemble needs ensemble scheduling', () => {
  expectOne(issuesOf(`name: "m" platform: "ensemble" ${io}`), 'ensemble scheduling must be set for ensemble m whose platform is ensemble');
});

test('ensemble: no instance group, optimization or warmup of its own', () => {
  const s = step('a', { x: 'IN' }, { y: 'OUT' });
  expectOne(ensemble(s, 'instance_group { kind: KIND_CPU }'), "instance group should not be specified for ensemble 'm'");
  expectOne(ensemble(s, 'optimization { graph { level: 1 } }'), "optimization should not be specified for ensemble 'm'");
  expectOne(ensemble(s, 'model_warmup { name: "w" }'), "model_warmup can not be specified for ensemble 'm'");
});

test('ensemble: steps with a model name, an input map and an output map', () => {
  expectOne(ensemble(''), "must specify 'step' for ensemble 'm'");
  expectOne(ensemble('step { input_map { key: "x" value: "IN" } output_map { key: "y" value: "OUT" } }'),
    "must specify 'model_name' in step 0 of ensemble 'm'");
  expectOne(ensemble('step { model_name: "a" output_map { key: "y" value: "OUT" } }'), "must specify 'input_map' in step 0 of ensemble 'm'");
  expectOne(ensemble('step { model_name: "a" input_map { key: "x" value: "IN" } }'), "must specify 'output_map' in step 0 of ensemble 'm'");
});

test('ensemble: a tensor is written by one step only', () => {
  expectOne(ensemble(step('a', { x: 'IN' }, { y: 'OUT' }) + step('b', { x: 'IN' }, { y: 'OUT' })),
    "ensemble tensor 'OUT' can appear in an output map only once for ensemble 'm' step 1");
});

test('ensemble: every input is read and every output is written', () => {
  expectOne(ensemble(step('a', { x: 'OTHER' }, { y: 'OUT' })), "ensemble input 'IN' for ensemble m' is not used");
  expectOne(ensemble(step('a', { x: 'IN' }, { y: 'ELSE' })), "ensemble output 'OUT' for ensemble m' is not used");
});

test('ensemble: an output that depends on an unconnected tensor is not written', () => {
  expectOne(ensemble(step('a', { x: 'IN' }, { y: 'MID' }) + step('b', { x: 'MID', z: 'GHOST' }, { y: 'OUT' })),
    "output 'OUT' for ensemble 'm' is not written: at least one of its depending tensors, 'GHOST', is not connected");
});

test('ensemble: a written tensor nobody reads is unused', () => {
  expectOne(ensemble(step('a', { x: 'IN' }, { y: 'OUT', z: 'SPARE' })), "ensemble tensor 'SPARE' is unused in ensemble 'm'");
});
