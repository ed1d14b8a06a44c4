// perf's sequences for a stateful model, as perf_analyzer sends them: each request's sequence fields, the
// lengths, the correlation ids, and the parameters they become on the wire (HTTP JSON and binary, gRPC).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSequenceIdRange, SequenceSlots } from '../../apps/server/src/loadgen/sequences.ts';
import { encodeInferBody } from '../../apps/server/src/loadgen/targets.ts';
import { inferRequest } from '../../apps/server/src/clients/perf/grpc-target.ts';
import type { Tensor } from '@inferscope/core';

test('each slot runs its sequences one after another: START first, END last, a new id for each', () => {
  const slots = new SequenceSlots({ length: 3, variationPct: 0, idStart: 10, seed: 1 }, 2);
  const a = [slots.next(0), slots.next(0), slots.next(0), slots.next(0)];
  const b = slots.next(1);
  assert.deepEqual(a.slice(0, 3), [{ id: 10, start: true, end: false }, { id: 10, start: false, end: false }, { id: 10, start: false, end: true }]);
  assert.deepEqual(b, { id: 12, start: true, end: false }, 'slot 1 opened after slot 0 had taken 10 and 11');
  assert.deepEqual(a[3], { id: 11, start: true, end: false });
});

test('lengths stay within the variation; a one-request sequence is START and END at once', () => {
  const slots = new SequenceSlots({ length: 20, variationPct: 20, idStart: 1, seed: 7 }, 1);
  const lengths: number[] = [];
  let n = 0;
  for (let i = 0; i < 2000; i++) {
    const s = slots.next(0);
    n++;
    if (s.end) {
      lengths.push(n);
      n = 0;
    }
  }
  assert.ok(lengths.length > 50);
  assert.ok(lengths.every((l) => l >= 16 && l <= 24), lengths.join(','));
  assert.ok(new Set(lengths).size > 3, 'the lengths vary');
  const one = new SequenceSlots({ length: 1, variationPct: 0, idStart: 5, seed: 1 }, 1);
  assert.deepEqual(one.next(0), { id: 5, start: true, end: true });
});

test('a bounded id range is reused in order, and refused when it has fewer ids than open sequences', () => {
  const slots = new SequenceSlots({ length: 1, variationPct: 0, idStart: 3, idEnd: 5, seed: 1 }, 2);
  assert.deepEqual([0, 1, 0, 1].map((s) => slots.next(s).id), [3, 4, 3, 4]);
  assert.throws(() => new SequenceSlots({ length: 1, variationPct: 0, idStart: 3, idEnd: 5, seed: 1 }, 3), /has 2 ids for 3 sequences open at once/);
  assert.deepEqual(parseSequenceIdRange('7'), { idStart: 7 });
  assert.deepEqual(parseSequenceIdRange('7:9'), { idStart: 7, idEnd: 9 });
  for (const bad of ['0', '9:7', '7:7', 'a:3', '1:2:3', '-1']) assert.throws(() => parseSequenceIdRange(bad), /--sequence-id-range/, bad);
});

const input: Tensor = { name: 'INPUT', datatype: 'INT32', shape: [1, 1], data: new Int32Array([4]) };

test('the sequence fields travel as KServe parameters: sequence_id, and the flags only when set', () => {
  const json = JSON.parse(encodeInferBody({ inputs: [input] }, { binary: false, sequence: { id: 42, start: true, end: false } }).body.toString());
  assert.deepEqual(json.parameters, { sequence_id: 42, sequence_start: true });
  const bin = encodeInferBody({ inputs: [input] }, { binary: true, sequence: { id: 'abc', start: false, end: true } });
  const header = JSON.parse(bin.body.subarray(0, Number(bin.headers['inference-header-content-length'])).toString());
  assert.deepEqual(header.parameters, { sequence_id: 'abc', sequence_end: true, binary_data_output: true });
  const plain = JSON.parse(encodeInferBody({ inputs: [input] }, { binary: false }).body.toString());
  assert.equal(plain.parameters, undefined);
  // gRPC: an integer id is int64_param (Triton's gRPC front end refuses uint64_param there), a string id string_param
  const grpc = inferRequest({ model: 'm', batchSize: 1, sequence: { id: 42, start: true, end: true } }, [input]) as { parameters: Record<string, unknown> };
  assert.deepEqual(grpc.parameters, { sequence_id: { int64_param: '42' }, sequence_start: { bool_param: true }, sequence_end: { bool_param: true } });
  const named = inferRequest({ model: 'm', batchSize: 1, sequence: { id: 'abc', start: false, end: false } }, [input]) as { parameters: Record<string, unknown> };
  assert.deepEqual(named.parameters, { sequence_id: { string_param: 'abc' } });
});
