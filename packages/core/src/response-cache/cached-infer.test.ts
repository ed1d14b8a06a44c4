import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceCache, payloadKey } from './cached-infer';
import { rawTensorBytes } from '../tensor/raw-bytes';
import { ResponseCache } from './response-cache';
import { EventBus, type RequestCacheEvent, type SchedulerEvent } from '../events';
import type { InferPayload, InferResult } from '../tensor/types';

function setup(capacity = 1 << 20) {
  let t = 1000;
  const bus = new EventBus();
  const events: RequestCacheEvent[] = [];
  bus.on((e: SchedulerEvent) => {
    if (e.type === 'request.cache') events.push(e);
  });
  const cache = new InferenceCache(new ResponseCache<InferResult>(capacity, { now: () => t }), () => t, bus);
  const advance = (us: number) => (t += us);
  return { cache, events, advance };
}

const payload = (xs: number[], shape = [1, xs.length], outputs?: string[]): InferPayload => ({
  inputs: [{ name: 'INPUT0', datatype: 'FP32', shape, data: new Float32Array(xs) }], ...(outputs ? { outputs } : {}),
});
/** the model: doubles its input, counting its runs */
function model() {
  const m = {
    runs: 0,
    run: (p: InferPayload) => () => {
      m.runs++;
      const x = p.inputs[0].data as Float32Array;
      return Promise.resolve<InferResult>([{ name: 'OUTPUT0', datatype: 'FP32', shape: [...p.inputs[0].shape], data: x.map((v) => v * 2) }]);
    },
  };
  return m;
}
const req = (p: InferPayload, id = 'r') => ({ model: 'identity', version: 1, request: { id, payload: p, batchSize: 1, shapeKey: '' }, startUs: 900 });

test('a hit answers with the same outputs as the miss, without running the model; a copy the caller may change', async () => {
  const { cache, events } = setup();
  const m = model();
  const p = payload([1, 2, 3, 4]);
  const miss = await cache.infer(req(p, 'a'), m.run(p));
  const hit = await cache.infer(req(payload([1, 2, 3, 4]), 'b'), m.run(p));
  assert.equal(m.runs, 1);
  assert.deepEqual(hit, miss);
  (hit[0].data as Float32Array)[0] = 99;
  hit[0].shape.push(7);
  assert.deepEqual(await cache.infer(req(p, 'c'), m.run(p)), miss, 'the stored response is untouched');
  assert.deepEqual(events.map((e) => [e.request_id, e.outcome]), [['a', 'miss'], ['b', 'hit'], ['c', 'hit']]);
  assert.equal(events[1].total_us, 100, 'a hit is timed from its request start');
});

test('same bytes in another shape, or another output asked for, is not a hit', async () => {
  const { cache } = setup();
  const m = model();
  for (const p of [payload([1, 2, 3, 4]), payload([1, 2, 3, 4], [2, 2]), payload([1, 2, 3, 4], [1, 4], ['OUTPUT0'])]) await cache.infer(req(p), m.run(p));
  assert.equal(m.runs, 3);
});

test('a failure is passed on and never stored', async () => {
  const { cache, events } = setup();
  const p = payload([5]);
  await assert.rejects(cache.infer(req(p), () => Promise.reject(new Error('backend failed'))), /backend failed/);
  const m = model();
  await cache.infer(req(p), m.run(p));
  assert.equal(m.runs, 1, 'ran again after the failure');
  assert.deepEqual(events.map((e) => e.outcome), ['miss']);
});

test('two identical requests in flight both run; one stores, one model miss is counted, as Triton counts them', async () => {
  const { cache, events } = setup();
  const m = model();
  const p = payload([3, 1]);
  const [r1, r2] = await Promise.all([cache.infer(req(p, 'x'), m.run(p)), cache.infer(req(p, 'y'), m.run(p))]);
  assert.deepEqual(r1, r2);
  assert.equal(m.runs, 2);
  assert.deepEqual(events.map((e) => [e.request_id, e.outcome]), [['x', 'miss']]);
  const s = cache.cache.stats();
  assert.deepEqual([s.lookups, s.misses, s.hits, s.entries], [2, 2, 0, 1]);
  await cache.infer(req(p, 'z'), m.run(p));
  assert.equal(m.runs, 2);
});

test('BYTES tensors are keyed by their elements, not by how they split', () => {
  const enc = new TextEncoder();
  const bytes = (...xs: string[]): InferPayload => ({ inputs: [{ name: 'S', datatype: 'BYTES', shape: [xs.length], data: xs.map((x) => enc.encode(x)) }] });
  assert.deepEqual([...rawTensorBytes([enc.encode('ab')])], [2, 0, 0, 0, 97, 98]);
  assert.notDeepEqual(payloadKey('m', 1, bytes('ab', 'c')), payloadKey('m', 1, bytes('a', 'bc')));
  assert.deepEqual(payloadKey('m', 1, bytes('ab', 'c')), payloadKey('m', 1, bytes('ab', 'c')));
});

test('a response larger than the cache is not stored, is still a model miss, and is reported as Triton logs it', async () => {
  let t = 0;
  const failures: string[] = [];
  const cache = new InferenceCache(new ResponseCache<InferResult>(100, { now: () => t }), () => t, undefined, (m) => failures.push(m));
  const m = model();
  const p = payload([1, 2, 3, 4, 5, 6, 7, 8]);
  await cache.infer(req(p), m.run(p));
  await cache.infer(req(p), m.run(p));
  assert.equal(m.runs, 2, 'never stored, so never a hit');
  assert.equal(cache.cache.stats().entries, 0);
  assert.equal(failures.length, 2);
  assert.match(failures[0], /^Failed to insert key \[[0-9a-f]{8}\] of model 'identity' version 1 into response cache: Requested byte_size: \d+ is greater than total cache size: 100$/);
});
