import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelConfig } from '../config/types';
import { kvShapeFromConfig } from './kv-signature';

type Io = NonNullable<ModelConfig['input']>;
const t = (name: string, data_type: string, dims: number[]) => ({ name, data_type, dims }) as Io[number];

/** A step model's config of `layers` layers; `tweak` edits it before the check. */
function stepConfig(layers: number, cache: (name: string) => Io[number] = (n) => t(n, 'TYPE_FP16', [8, -1, 64])): Pick<ModelConfig, 'input' | 'output' | 'max_batch_size'> {
  const per = (p: string) => Array.from({ length: layers }, (_, l) => [cache(`${p}_key_${l}`), cache(`${p}_value_${l}`)]).flat();
  return {
    max_batch_size: 8,
    input: [t('input_ids', 'TYPE_INT64', [-1]), t('position_ids', 'TYPE_INT64', [-1]), t('attention_mask', 'TYPE_INT64', [-1]), ...per('past')],
    output: [t('logits', 'TYPE_FP32', [32000]), ...per('present')],
  };
}

test('the KV shape is read from the step signature: layers from the past_key_<l> count, heads and head_dim from dims, bytes from the type', () => {
  assert.deepEqual(kvShapeFromConfig(stepConfig(3)), { shape: { layers: 3, kvHeads: 8, headDim: 64, bytesPerElement: 2 } });
  // max_batch_size 0: the batch dimension is in dims.
  const c = stepConfig(1, (n) => t(n, 'TYPE_FP32', [-1, 4, -1, 16]));
  assert.deepEqual(kvShapeFromConfig({ ...c, max_batch_size: 0 }), { shape: { layers: 1, kvHeads: 4, headDim: 16, bytesPerElement: 4 } });
});

test('a config without the signature is refused saying every thing missing or inconsistent', () => {
  const problem = (c: Parameters<typeof kvShapeFromConfig>[0]) => {
    const r = kvShapeFromConfig(c);
    assert.ok('problem' in r, JSON.stringify(r));
    return r.problem;
  };
  assert.match(problem({ input: [t('input', 'TYPE_FP32', [784])], output: [] }), /^not a KV-cache step model: input 'input_ids' is missing; .*output 'logits' is missing; input 'past_key_0' is missing/);
  const noValue = stepConfig(2);
  noValue.input = noValue.input!.filter((i) => i.name !== 'past_value_1');
  assert.match(problem(noValue), /input 'past_value_1' is missing/);
  const fixedPast = stepConfig(1, (n) => t(n, 'TYPE_FP16', n === 'present_key_0' ? [8, 16, 64] : [8, -1, 64]));
  assert.match(problem(fixedPast), /output 'present_key_0' must be a float tensor of dims \[heads, -1, head_dim\].*not TYPE_FP16 \[8, 16, 64\]/);
  const intCache = stepConfig(1, (n) => t(n, n.startsWith('past_value') ? 'TYPE_INT32' : 'TYPE_FP16', [8, -1, 64]));
  assert.match(problem(intCache), /input 'past_value_0' must be a float tensor/);
  const otherHeads = stepConfig(2, (n) => t(n, 'TYPE_FP16', n === 'past_key_1' ? [4, -1, 64] : [8, -1, 64]));
  assert.match(problem(otherHeads), /input 'past_key_1' \(TYPE_FP16 4 heads of 64\) differs from 'past_key_0' \(8 heads of 64, 2 bytes\)/);
  const floatIds = stepConfig(1);
  floatIds.input![0] = t('input_ids', 'TYPE_FP32', [-1]);
  assert.match(problem(floatIds), /input 'input_ids' must be TYPE_INT64, not TYPE_FP32/);
});
