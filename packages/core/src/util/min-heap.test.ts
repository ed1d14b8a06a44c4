import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MinHeap } from './min-heap';
import { Rng } from '../load/rng';

test('MinHeap pops in order for any push/pop/retain interleaving, ties by the comparator', () => {
  const rng = new Rng(5);
  const heap = new MinHeap<{ k: number; seq: number }>((a, b) => a.k < b.k || (a.k === b.k && a.seq < b.seq));
  const model: { k: number; seq: number }[] = [];
  let seq = 0;
  for (let step = 0; step < 2000; step++) {
    const r = rng.next();
    if (r < 0.02) {
      // retain: drop one residue of k, the heap still pops in order afterwards
      const drop = rng.int(0, 2);
      const keep = (x: { k: number }) => x.k % 3 !== drop;
      heap.retain(keep);
      model.splice(0, model.length, ...model.filter(keep));
    } else if (model.length === 0 || r < 0.6) {
      const item = { k: rng.int(0, 20), seq: seq++ };
      heap.push(item);
      model.push(item);
      model.sort((a, b) => a.k - b.k || a.seq - b.seq);
    } else {
      assert.equal(heap.peek(), model[0]);
      assert.equal(heap.pop(), model.shift());
    }
    assert.equal(heap.size, model.length);
  }
  assert.equal([...heap.values()].length, model.length);
  while (model.length > 0) assert.equal(heap.pop(), model.shift());
  assert.equal(heap.pop(), undefined);
  assert.equal(heap.peek(), undefined);
});
