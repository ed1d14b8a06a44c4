// The call chain a stub's BLS call gets (StubRuns.chainOf, issue 56): the named request and the chain
// above it, held while its execute() runs; a decoupled model's call from another thread, and a call
// naming no request the stub still works on (given the deepest chain, for the depth bound only), do not
// count as holding the instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerRequest } from '@inferscope/core';
import { StubRuns } from '../../apps/server/src/backends/stub/decoupled-runs.ts';
import type { StreamingPayload } from '../../apps/server/src/infer/response-stream.ts';
import type { CallChain } from '../../apps/server/src/infer/call-chain.ts';

const runs = (decoupled: boolean) => new StubRuns({
  model: 'm', version: '1', instance: 'm_0_0', config: { name: 'm' }, decoupled, finalTimeoutMs: 60_000, sendStallMs: 60_000, log: () => undefined, tell: () => undefined,
});
const request = (id: string, callChain?: CallChain): SchedulerRequest<StreamingPayload> =>
  ({ id, batchSize: 1, shapeKey: '', payload: { inputs: [], ...(callChain ? { callChain } : {}) } }) as SchedulerRequest<StreamingPayload>;
const above: CallChain = [{ model: 'a', version: '1', instance: 'a_0_0', held: true }, { model: 'b', version: '1', instance: 'b_0_0', held: true }];
const shape = (c: CallChain | undefined) => c?.map((l) => `${l.model}:${l.held ? 'held' : 'free'}`);

test('a call names its request: the chain above it and the request, held until execute() returns', () => {
  const r = runs(false);
  r.sent(1, [request('client'), request('deep', above)]);
  assert.deepEqual(shape(r.chainOf(1, 0)), ['m:held']);
  assert.deepEqual(shape(r.chainOf(1, 1)), ['a:held', 'b:held', 'm:held']);
  assert.deepEqual(shape(r.chainOf(1, 1, true)), ['a:held', 'b:held', 'm:held'], 'an ordinary model\'s execute() waits for its threads');
  // a call naming no request: the deepest chain the stub works on, for the bound only
  assert.deepEqual(shape(r.chainOf(undefined, undefined)), ['a:held', 'b:held', 'm:free']);
  const chain = r.chainOf(1, 1)!;
  r.answered(1, null);
  assert.equal(chain.at(-1)!.held, false, 'execute() returned: the instance is free of it');
  assert.equal(r.chainOf(undefined, undefined), undefined, 'nothing in flight: no chain');
});

test('a decoupled model: a call from a thread it started does not hold the instance; the request stays in the chain until its final response', () => {
  const r = runs(true);
  r.sent(7, [request('d', above)]);
  assert.deepEqual(shape(r.chainOf(7, 0)), ['a:held', 'b:held', 'm:held']);
  assert.deepEqual(shape(r.chainOf(7, 0, true)), ['a:held', 'b:held', 'm:free']);
  r.answered(7, null); // execute() returned; the request is open until its final response
  assert.deepEqual(shape(r.chainOf(7, 0, true)), ['a:held', 'b:held', 'm:free']);
  assert.equal(r.chainOf(7, 0)!.length, 3, 'depth still counts it');
  r.failAll(new Error('stub died'));
});
