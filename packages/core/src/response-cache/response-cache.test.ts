import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseCache, countsAsModelMiss, ENTRY_OVERHEAD_BYTES as OVERHEAD } from './response-cache';
import { encodeKey, type CacheKeyParts } from './key';
import { xxh32 } from './hash';
import { Rng } from '../load/rng';

const text = new TextEncoder();
const f32 = (...xs: number[]) => new Uint8Array(new Float32Array(xs).buffer);
const keyOf = (bytes: Uint8Array, over: Partial<CacheKeyParts> = {}) =>
  encodeKey({ model: 'm', version: 1, inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, bytes.length / 4], bytes }], outputs: [], ...over });
const ok = (value: string, bytes = 16) => ({ ok: true as const, value, bytes });

test('xxHash32 matches the published test vectors', () => {
  assert.equal(xxh32(new Uint8Array()), 0x02cc5d05);
  assert.equal(xxh32(text.encode('a')), 0x550d7456);
  assert.equal(xxh32(text.encode('abc')), 0x32d153ff);
  assert.equal(xxh32(text.encode('Nobody inspects the spammish repetition')), 0xe2293b2f);
});

test('a full-key comparison tells keys apart whatever their alignment', () => {
  const base = keyOf(f32(1, 2, 3));
  const shifted = new Uint8Array(base.length + 1);
  shifted.set(base, 1);
  const cache = new ResponseCache<string>(10_000);
  cache.insert(base, ok('x'));
  assert.equal(cache.lookup(shifted.subarray(1)).hit, true, 'the same bytes at an odd offset');
  const other = base.slice();
  other[other.length - 1] ^= 1;
  assert.equal(cache.lookup(other).hit, false, 'the last byte differs');
});

test('the key tells apart what Triton folds together: shape, datatype, requested outputs; input order does not matter', () => {
  const bytes = f32(1, 2, 3, 4);
  const base = { model: 'm', version: 1, outputs: [] };
  const k = (shape: number[], datatype = 'FP32', outputs: string[] = []) =>
    encodeKey({ ...base, outputs, inputs: [{ name: 'X', datatype, shape, bytes }] });
  const cache = new ResponseCache<string>(10_000);
  cache.insert(k([1, 4]), ok('1x4'));
  assert.equal(cache.lookup(k([2, 2])).hit, false, 'same bytes, other shape');
  assert.equal(cache.lookup(k([1, 4], 'INT32')).hit, false, 'same bytes, other datatype');
  assert.equal(cache.lookup(k([1, 4], 'FP32', ['OUT1'])).hit, false, 'another output asked for');
  assert.deepEqual(cache.lookup(k([1, 4])), { hit: true, value: '1x4', us: 0 });
  // the version that ran and the model are part of it too
  assert.equal(cache.lookup(encodeKey({ ...base, version: 2, inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], bytes }] })).hit, false);
  // inputs are keyed by name, whatever order the request listed them in
  const a = { name: 'A', datatype: 'INT8', shape: [1], bytes: new Uint8Array([1]) };
  const b = { name: 'B', datatype: 'INT8', shape: [1], bytes: new Uint8Array([2]) };
  assert.deepEqual(encodeKey({ ...base, inputs: [a, b] }), encodeKey({ ...base, inputs: [b, a] }));
  // parts are length-prefixed: moving a byte from one input's name to its bytes is another key
  const split1 = encodeKey({ ...base, inputs: [{ name: 'ab', datatype: 'INT8', shape: [1], bytes: new Uint8Array([99]) }] });
  const split2 = encodeKey({ ...base, inputs: [{ name: 'a', datatype: 'INT8', shape: [1], bytes: new Uint8Array([98, 99]) }] });
  assert.notDeepEqual(split1, split2);
  // names outside ASCII are UTF-8 as TextEncoder writes them
  const named = (name: string) => encodeKey({ ...base, inputs: [{ name, datatype: 'INT8', shape: [1], bytes: new Uint8Array([1]) }] });
  assert.deepEqual(named('é'), named('é'));
  assert.notDeepEqual(named('é'), named('e'));
  assert.deepEqual([...named('é').subarray(4 + 1 + 8 + 4, 4 + 1 + 8 + 4 + 6)], [2, 0, 0, 0, 0xc3, 0xa9]);
});

test('LRU: a hit makes an entry the newest; inserting past the capacity evicts the least recently used first', () => {
  const k = (i: number) => keyOf(f32(i));
  const entry = k(0).length + 16 + OVERHEAD;
  const cache = new ResponseCache<string>(3 * entry);
  for (const i of [1, 2, 3]) assert.equal(cache.insert(k(i), ok(`r${i}`)).outcome, 'inserted');
  assert.equal(cache.lookup(k(1)).hit, true); // 1 is now the newest: order 2, 3, 1
  assert.deepEqual(cache.valuesLruFirst(), ['r2', 'r3', 'r1']);
  cache.insert(k(4), ok('r4'));
  assert.deepEqual(cache.valuesLruFirst(), ['r3', 'r1', 'r4'], '2 was the least recently used');
  assert.equal(cache.lookup(k(2)).hit, false);
  // an entry twice the size needs two evictions
  cache.insert(k(5), ok('r5', 16 + entry));
  assert.deepEqual(cache.valuesLruFirst(), ['r4', 'r5']);
  const s = cache.stats();
  assert.deepEqual([s.entries, s.bytes, s.evictions, s.inserts, s.lookups, s.hits, s.misses], [2, 3 * entry, 3, 5, 2, 1, 1]);
  assert.equal(s.utilization, 1);
});

test('an entry larger than the whole cache is not inserted and evicts nothing', () => {
  const cache = new ResponseCache<string>(2000);
  const small = keyOf(f32(1));
  cache.insert(small, ok('small'));
  const r = cache.insert(keyOf(f32(2)), ok('huge', 2000 - small.length - OVERHEAD + 1));
  assert.equal(r.outcome, 'too_large');
  assert.equal(countsAsModelMiss(r.outcome), true, 'Triton counts a failed insert as a model cache miss');
  assert.deepEqual(cache.valuesLruFirst(), ['small']);
  assert.equal(cache.stats().evictions, 0);
});

test('an error is never cached; a key already stored is kept, not replaced (two identical requests in flight)', () => {
  const cache = new ResponseCache<string>(10_000);
  const key = keyOf(f32(7));
  // both identical requests look up before either has run: two misses
  assert.equal(cache.lookup(key).hit, false);
  assert.equal(cache.lookup(key).hit, false);
  const first = cache.insert(key, ok('first'));
  const second = cache.insert(key, ok('second'));
  assert.deepEqual([first.outcome, second.outcome], ['inserted', 'exists']);
  // Triton counts the model's cache miss once: the second insert found the key
  assert.deepEqual([countsAsModelMiss(first.outcome), countsAsModelMiss(second.outcome)], [true, false]);
  assert.deepEqual(cache.lookup(key), { hit: true, value: 'first', us: 0 });

  const failed = keyOf(f32(8));
  const r = cache.insert(failed, { ok: false });
  assert.equal(r.outcome, 'error');
  assert.equal(countsAsModelMiss(r.outcome), false);
  assert.equal(cache.lookup(failed).hit, false);
  assert.equal(cache.stats().entries, 1);
});

test('a hash collision never answers with another key\'s response', () => {
  const cache = new ResponseCache<string>(10_000, { hash: () => 'same' });
  const a = keyOf(f32(1));
  const b = keyOf(f32(2));
  cache.insert(a, ok('A'));
  assert.equal(cache.lookup(b).hit, false);
  cache.insert(b, ok('B'));
  assert.deepEqual([cache.lookup(a), cache.lookup(b)].map((r) => r.hit && r.value), ['A', 'B']);
  // eviction takes one entry out of a shared bucket, not the bucket
  const small = new ResponseCache<string>(2 * (a.length + 16 + OVERHEAD), { hash: () => 'same' });
  small.insert(a, ok('A'));
  small.insert(b, ok('B'));
  small.insert(keyOf(f32(3)), ok('C'));
  assert.equal(small.lookup(a).hit, false);
  assert.deepEqual([small.lookup(b), small.lookup(keyOf(f32(3)))].map((r) => r.hit && r.value), ['B', 'C']);
});

test('lookup and insert durations come from the injected clock', () => {
  let t = 0;
  const cache = new ResponseCache<string>(10_000, { now: () => (t += 5) });
  const key = keyOf(f32(1));
  assert.equal(cache.lookup(key).us, 5);
  assert.equal(cache.insert(key, ok('x')).us, 5);
  assert.equal(cache.lookup(key).us, 5);
  assert.deepEqual([cache.stats().lookupUs, cache.stats().insertUs], [10, 5]);
});

test('random operations agree with a plain LRU model and never exceed the capacity', () => {
  const rng = new Rng(54);
  const capacity = 4 * OVERHEAD + 1500;
  const cache = new ResponseCache<number>(capacity);
  // the model: an array, least recently used first, of [id, bytes]
  let model: { id: number; bytes: number }[] = [];
  const key = (id: number) => keyOf(f32(id));
  for (let step = 0; step < 5000; step++) {
    const id = rng.int(0, 40);
    if (rng.next() < 0.5) {
      const got = cache.lookup(key(id));
      const at = model.findIndex((e) => e.id === id);
      assert.equal(got.hit, at >= 0);
      if (got.hit) {
        assert.equal(got.value, id);
        model.push(...model.splice(at, 1));
      }
    } else {
      const extra = rng.int(1, 4000); // some larger than the whole cache
      const bytes = key(id).length + extra + OVERHEAD;
      const outcome = cache.insert(key(id), { ok: true, value: id, bytes: extra }).outcome;
      if (model.some((e) => e.id === id)) assert.equal(outcome, 'exists');
      else if (bytes > capacity) assert.equal(outcome, 'too_large');
      else {
        assert.equal(outcome, 'inserted');
        while (model.reduce((n, e) => n + e.bytes, 0) + bytes > capacity) model = model.slice(1);
        model.push({ id, bytes });
      }
    }
    assert.deepEqual(cache.valuesLruFirst(), model.map((e) => e.id));
    assert.ok(cache.stats().bytes <= capacity);
  }
});

test('10,000 unique inputs stay within the cache size', () => {
  const capacity = 64 * 1024;
  const cache = new ResponseCache<Uint8Array>(capacity);
  for (let i = 0; i < 10_000; i++) {
    const key = keyOf(f32(i, i + 1, i + 2, i + 3));
    assert.equal(cache.lookup(key).hit, false);
    const value = f32(i * 2);
    cache.insert(key, { ok: true, value, bytes: value.length });
  }
  const s = cache.stats();
  assert.ok(s.bytes <= capacity && s.bytes > capacity - 1000, `bytes ${s.bytes}`);
  assert.equal(s.entries + s.evictions, 10_000);
  assert.equal(s.misses, 10_000);
});
