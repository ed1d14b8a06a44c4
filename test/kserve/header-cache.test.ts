// The binary extension's JSON header is parsed once per distinct text (kserve/header-cache.ts): requests
// that share a header still get their own tensor bytes, what one request's parse returns cannot change
// the next one's, a header that fails fails every time with the same words, and a stream of distinct
// headers past the cache's size keeps parsing right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tensor } from '@inferscope/core';
import { parseInferRequest } from '../../apps/server/src/kserve/parse-request';
import { binaryRequest } from './wire';

const tensor = (v: number, name = 'input'): Tensor => ({ name, datatype: 'FP32', shape: [1, 4], data: new Float32Array([v, v, v, v]) });
const floats = (b: Uint8Array | undefined) => Array.from(new Float32Array(Uint8Array.from(b!).buffer));

test('requests sharing a header text each get their own bytes, and cannot change what the next one parses', () => {
  const a = binaryRequest([tensor(1)]);
  const b = binaryRequest([tensor(2)]);
  assert.equal(a.body.subarray(0, a.headerLength).toString(), b.body.subarray(0, b.headerLength).toString(), 'the same header text');
  const first = parseInferRequest(a.body, a.headerLength, 'm');
  const second = parseInferRequest(b.body, b.headerLength, 'm');
  assert.deepEqual(floats(first.inputs[0].binary), [1, 1, 1, 1]);
  assert.deepEqual(floats(second.inputs[0].binary), [2, 2, 2, 2]);
  assert.notEqual(first.inputs[0], second.inputs[0], 'each request its own input record');
  assert.throws(() => (first.inputs[0].shape as number[]).push(7), TypeError, 'a shared part refuses changes rather than pass them on');
  assert.deepEqual(parseInferRequest(a.body, a.headerLength, 'm').inputs[0].shape, [1, 4]);
});

test('a header that fails, fails every time with the same words; distinct headers past the cache size parse right', () => {
  const bad = Buffer.from('{"inputs": [');
  for (let i = 0; i < 2; i++) assert.throws(() => parseInferRequest(bad, bad.byteLength, 'm'), /failed to parse the request JSON buffer: /);
  const deep = Buffer.from(`{"inputs":[],"x":${'['.repeat(120)}${']'.repeat(120)}}`);
  for (let i = 0; i < 2; i++) assert.throws(() => parseInferRequest(deep, deep.byteLength, 'm'), /failed to parse the request JSON buffer: .*nest/i);
  for (let i = 0; i < 600; i++) {
    const r = binaryRequest([tensor(i, `in_${i}`)]);
    const parsed = parseInferRequest(r.body, r.headerLength, 'm');
    assert.equal(parsed.inputs[0].name, `in_${i}`);
    assert.deepEqual(floats(parsed.inputs[0].binary), [i, i, i, i]);
  }
});
