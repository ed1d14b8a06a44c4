import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WaitingQueues } from '../../packages/core/src/stats/waiting-queues.ts';

test('ids leave from the front, out of order, or were never queued', () => {
  const w = new WaitingQueues();
  for (const id of ['a', 'b', 'c', 'd']) w.add(id, 1);
  w.add('p', 2);
  assert.equal(w.leave('a'), true);
  assert.equal(w.leave('c'), true, 'from the middle (a timeout)');
  assert.equal(w.leave('p'), true, 'another level');
  assert.equal(w.leave('never'), false, 'refused at the door: was not waiting');
  assert.equal(w.leave('a'), false, 'already left');
  assert.deepEqual(w.depthByLevel(), [[1, 2], [2, 0]]);
  assert.equal(w.leave('b'), true);
  assert.equal(w.leave('d'), true, 'the head skips the hole c left');
  assert.deepEqual(w.depthByLevel(), [[1, 0], [2, 0]]);
});

test('a long stream keeps exact depths and compacts what has left', () => {
  const w = new WaitingQueues();
  let n = 0;
  for (let round = 0; round < 200; round++) {
    const ids = Array.from({ length: 32 }, () => `r${n++}`);
    for (const id of ids) w.add(id, 1 + (n % 3 === 0 ? 1 : 0));
    // take the first 30 in a scrambled order, keep 2 waiting a round longer
    for (const id of ids.slice(0, 30).reverse()) assert.equal(w.leave(id), true);
    if (round > 0) for (const id of [`r${(round - 1) * 32 + 30}`, `r${(round - 1) * 32 + 31}`]) assert.equal(w.leave(id), true);
  }
  const total = w.depthByLevel().reduce((a, [, d]) => a + d, 0);
  assert.equal(total, 2, 'the last round left two waiting');
  const internal = (w as unknown as { ids: Map<number, unknown[]> }).ids;
  for (const q of internal.values()) assert.ok(q.length < 3000, `queue array compacted (length ${q.length})`);
});

test('levels are tracked only while in use: many distinct levels (priority_levels may be 2^32) leave nothing behind', () => {
  const w = new WaitingQueues();
  for (let i = 0; i < 10_000; i++) {
    const level = 1 + ((i * 7919) % 4294967296);
    w.add(`r${i}`, level);
    assert.equal(w.leave(`r${i}`), true);
  }
  w.add('x', 3);
  w.add('y', 4294967296);
  const depth = w.depthByLevel();
  assert.ok(depth.length <= 10, `${depth.length} levels tracked`);
  assert.deepEqual(depth.filter(([, n]) => n > 0), [[3, 1], [4294967296, 1]]);
  assert.equal(w.leave('y'), true);
  assert.equal(w.leave('x'), true);
  assert.ok(w.depthByLevel().every(([, n]) => n === 0));
});
