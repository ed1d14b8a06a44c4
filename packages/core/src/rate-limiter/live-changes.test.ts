/** Live changes to the rate limiter (issue 54's Live Controls): resource counts and priorities. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from './rate-limiter';
import { InferError } from '../errors';

const needs = (name: string, count: number, global = false) => [{ name, count, global }];

function twoOnOne(): RateLimiter {
  const l = new RateLimiter('execution_count');
  l.addInstance({ id: 'a/0', model: 'a', device: 0, resources: needs('acc', 1, true) });
  l.addInstance({ id: 'b/0', model: 'b', device: 0, resources: needs('acc', 1, true) });
  l.addInstance({ id: 'c/0', model: 'c', device: 0, resources: needs('other', 2) });
  return l;
}

test('raising a count grants a waiter at once; other resources keep the count they had', () => {
  const l = twoOnOne();
  assert.equal(l.acquire('a/0', () => assert.fail('a runs at once')), true);
  let bRan = false;
  assert.equal(l.acquire('b/0', () => (bRan = true)), false);
  l.setResourceCount('acc', null, 2);
  assert.equal(bRan, true);
  const snap = l.snapshot();
  assert.deepEqual(snap.resources.map((r) => [r.name, r.count, r.held]), [['acc', 2, 2], ['other', 2, 0]]);
  assert.deepEqual(snap.resources[0].holders.sort(), ['a/0', 'b/0']);
});

test('a count below a need is refused with Triton\'s words and changes nothing', () => {
  const l = twoOnOne();
  assert.throws(() => l.setResourceCount('other', 0, 1), (e: unknown) => e instanceof InferError && e.code === 'INVALID_ARG' &&
    e.message === 'Resource count for "other" is limited to 1 which will prevent scheduling of one or more model instances, the minimum required count is 2');
  assert.deepEqual(l.snapshot().resources.map((r) => r.count), [1, 2]);
  assert.throws(() => l.setResourceCount('nothing', null, 3), /no loaded instance needs a resource "nothing"/);
});

test('lowering a count lets the holder finish; the next waiter runs only when it fits', () => {
  const l = twoOnOne();
  l.setResourceCount('acc', null, 2);
  l.acquire('a/0', () => {});
  l.acquire('b/0', () => {});
  l.setResourceCount('acc', null, 1);
  assert.equal(l.snapshot().resources[0].held, 2, 'what runs is not taken back');
  l.release('a/0');
  let again = false;
  assert.equal(l.acquire('a/0', () => (again = true)), false, 'one of one is in use by b');
  l.release('b/0');
  assert.equal(again, true);
});

test('a live priority re-ranks the waiters: the lower weight goes first', () => {
  const l = new RateLimiter('execution_count');
  for (const m of ['h', 'x', 'y']) l.addInstance({ id: `${m}/0`, model: m, device: 0, resources: needs('acc', 1, true) });
  // x and y have each run once; the holder h runs while both wait (equal weight: x asked first)
  for (const m of ['x', 'y']) {
    l.acquire(`${m}/0`, () => {});
    l.release(`${m}/0`);
  }
  l.acquire('h/0', () => {});
  const order: string[] = [];
  l.acquire('x/0', () => order.push('x'));
  l.acquire('y/0', () => order.push('y'));
  assert.deepEqual(l.snapshot().queue, ['x/0', 'y/0']);
  assert.equal(l.setModelPriority('x', 3), 1);
  assert.deepEqual(l.snapshot().queue, ['y/0', 'x/0'], 'x weighs 1 x 3, y 1 x 1');
  l.release('h/0');
  assert.deepEqual(order, ['y']);
  assert.equal(l.snapshot().instances.find((i) => i.id === 'x/0')!.priority, 3);
  assert.throws(() => l.setModelPriority('nobody', 2), /model 'nobody' has no instance the rate limiter knows/);
});

test('with the limiter off, live changes are refused in words', () => {
  const l = new RateLimiter('off');
  assert.throws(() => l.setResourceCount('acc', null, 1), /the rate limiter is off: start the server with --rate-limit execution_count/);
  assert.throws(() => l.setModelPriority('a', 2), /the rate limiter is off/);
});
