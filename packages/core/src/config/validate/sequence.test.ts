import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, expectOne, issuesOf } from './test-helpers';

const seq = (body: string) => issuesOf(`${BASE}\nsequence_batching { ${body} }`);
const control = (name: string, c: string) => `control_input { name: "${name}" control { ${c} } }`;

test('sequence: a valid set of controls passes', () => {
  assert.deepEqual(seq(
    control('START', 'kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ]') +
    control('END', 'kind: CONTROL_SEQUENCE_END fp32_false_true: [ 0, 1 ]') +
    control('READY', 'kind: CONTROL_SEQUENCE_READY bool_false_true: [ false, true ]') +
    control('CORRID', 'kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64'),
  ), []);
});

test('sequence: control tensors need a name', () => {
  expectOne(seq('control_input { control { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } }'),
    'sequence batching control tensor must have a name for m');
});

test('sequence: one tensor per control input', () => {
  expectOne(seq(control('A', 'kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ]') + control('A', 'kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ]')),
    "sequence batching control tensor 'A' is specified for multiple control kinds for m");
});

test('sequence: a control kind only once', () => {
  expectOne(seq(control('A', 'kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ]') + control('B', 'kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ]')),
    'sequence batching specifies multiple CONTROL_SEQUENCE_END tensors for m');
});

test('sequence: boolean controls need false/true values, with a hint', () => {
  const issue = expectOne(seq(control('S', 'kind: CONTROL_SEQUENCE_START')),
    "sequence batching must specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for CONTROL_SEQUENCE_START for m");
  assert.match(issue.hint ?? '', /int32_false_true: \[ 0, 1 \]/);
});

test('sequence: only one kind of false/true values', () => {
  expectOne(seq(control('S', 'kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] fp32_false_true: [ 0, 1 ]')),
    "sequence batching specifies more than one from 'int32_false_true', 'fp32_false_true' and 'bool_false_true' for CONTROL_SEQUENCE_START for m");
});

test('sequence: exactly two false/true values', () => {
  expectOne(seq(control('S', 'kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1, 2 ]')),
    "sequence batching control 'int32_false_true' must have exactly 2 entries for CONTROL_SEQUENCE_READY for m");
  expectOne(seq(control('S', 'kind: CONTROL_SEQUENCE_READY bool_false_true: [ true ]')),
    "sequence batching control 'bool_false_true' must have exactly 2 entries");
});

test('sequence: CORRID takes a data type, not false/true values', () => {
  expectOne(seq(control('C', 'kind: CONTROL_SEQUENCE_CORRID int32_false_true: [ 0, 1 ]')),
    "sequence batching must not specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for CONTROL_SEQUENCE_CORRID for m");
});

test('sequence: CORRID data type is an integer or a string', () => {
  expectOne(seq(control('C', 'kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_FP32')),
    'unexpected data type for control CONTROL_SEQUENCE_CORRID for m. Allowed data types are TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 and TYPE_STRING');
  assert.deepEqual(seq(control('C', 'kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_STRING')), []);
});

test('sequence: oldest strategy preferred sizes positive and not above max_batch_size', () => {
  expectOne(seq('oldest { preferred_batch_size: [ 0 ] }'), 'sequence batching preferred batch size must be positive for m');
  expectOne(seq('oldest { preferred_batch_size: [ 9 ] }'), 'sequence batching preferred batch size must be <= max batch size for m');
});

test('sequence: direct strategy slot utilisation within [0, 1]', () => {
  expectOne(seq('direct { minimum_slot_utilization: 1.5 }'), 'sequence batching minimum slot utilization must be in range (0.0, 1.0] for m');
  assert.deepEqual(seq('direct { minimum_slot_utilization: 0.5 }'), []);
});
