/** A step as tensors (what every backend feeds) and a model's state outputs back. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitStateOutputs, stepInputs, zeroedInputs } from '@inferscope/core/scheduler/sequence/tensors.ts';
import { stateSpecs } from '@inferscope/core/scheduler/sequence/state.ts';
import { controlTable, controlValues } from '@inferscope/core/scheduler/sequence/controls.ts';
import type { SequenceStep } from '@inferscope/core/scheduler/sequence/types.ts';
import { CONTROLS, STATE } from './config.ts';

const specs = stateSpecs(STATE, 4);

function step(ready: boolean): SequenceStep {
  const controls = controlValues(controlTable({ control_input: CONTROLS }), { ready, start: true, end: false, id: 2n ** 63n + 1n });
  return { slot: 0, ready, correlationId: 2n ** 63n + 1n, start: true, end: false, controls, stateIn: { INPUT_STATE: specs[0]!.initial } };
}

test('control and state inputs as tensors, with the batch dimension when the model batches', () => {
  const t = stepInputs(step(true), true);
  assert.deepEqual(t.map((x) => [x.name, x.datatype, x.shape, Array.from(x.data as ArrayLike<number | bigint>)]), [
    ['START', 'INT32', [1, 1], [1]],
    ['END', 'INT32', [1, 1], [0]],
    ['READY', 'INT32', [1, 1], [1]],
    ['CORRID', 'UINT64', [1, 1], [2n ** 63n + 1n]],
    ['INPUT_STATE', 'INT32', [1, 1], [0]],
  ]);
  assert.deepEqual(stepInputs(step(false), false).slice(0, 4).map((x) => [x.shape, Array.from(x.data as ArrayLike<number | bigint>)]), [
    [[1], [0]], [[1], [0]], [[1], [0]], [[1], [0n]],
  ]);
  const strings = stepInputs({ ...step(true), controls: [{ name: 'C', kind: 'CORRID', dataType: 'TYPE_STRING', value: 'seq-7' }], stateIn: {} }, true);
  assert.deepEqual(strings[0]!.data, [new TextEncoder().encode('seq-7')]);
  const bools = stepInputs({ ...step(true), controls: [{ name: 'B', kind: 'READY', dataType: 'TYPE_BOOL', value: true }], stateIn: {} }, true);
  assert.deepEqual(Array.from(bools[0]!.data as Uint8Array), [1]);
});

test('state outputs split from what the client sees; a null request carries zeros of the same shapes', () => {
  const out = [
    { name: 'OUTPUT', datatype: 'INT32' as const, shape: [1, 1], data: new Int32Array([7]) },
    { name: 'OUTPUT_STATE', datatype: 'INT32' as const, shape: [1, 1], data: new Int32Array([7]) },
  ];
  const { state, rest } = splitStateOutputs(out, specs);
  assert.deepEqual(rest.map((x) => x.name), ['OUTPUT']);
  assert.deepEqual(Array.from(state.OUTPUT_STATE!.data), [7, 0, 0, 0]);
  const z = zeroedInputs([{ name: 'INPUT', datatype: 'FP32', shape: [1, 3], data: new Float32Array([1, 2, 3]) }]);
  assert.deepEqual(Array.from(z[0]!.data as Float32Array), [0, 0, 0]);
});
