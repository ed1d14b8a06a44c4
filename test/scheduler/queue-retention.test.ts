import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PriorityQueues } from '../../packages/core/src/scheduler/priority-queues.ts';
import type { AnyEntry } from '../../packages/core/src/scheduler/queue-entry.ts';
import { WaitingQueues } from '../../packages/core/src/stats/waiting-queues.ts';

// The scheduler's queues and the statistics' waiting ids are long-lived FIFOs with a head index. A slot
// behind the head that still points at what left keeps it alive through every young-generation GC and
// gets it promoted: under load that was most of what each scavenge copied (bench/serve/README.md,
// "What the heap kept"). These tests hold weak references to what left and force a full GC.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const collected = async (refs: WeakRef<object>[]): Promise<number> => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return refs.filter((r) => r.deref() === undefined).length;
};

let seq = 0;
const entry = (): AnyEntry => ({
  req: { batchSize: 1, shapeKey: '', payload: { data: new Float32Array(784) } }, id: `r${seq}`, seq: seq++, level: 1, batchSize: 1,
  shapeKey: '', enqueuedUs: 0, deadlineUs: 0, queued: true, delayed: false, settle: () => {},
});

// The traffic runs in plain functions: an async test's own locals stay in its suspended frame.
function batchesTaken(q: PriorityQueues, taken: WeakRef<object>[]): void {
  q.push(entry()); // one request always waits behind the batches taken
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < 16; i++) q.push(entry());
    for (const e of q.takeFirst(16)) taken.push(new WeakRef(e));
  }
}

test('what the scheduler took from a queue that never empties is not kept by the queue', async () => {
  const q = new PriorityQueues(1);
  const taken: WeakRef<object>[] = [];
  batchesTaken(q, taken);
  assert.equal(q.size, 1);
  assert.equal(await collected(taken), taken.length, 'every entry taken is collectable');
});

// String objects stand in for ids so that a weak reference can watch them (the class compares by identity)
const id = () => new String(`r${seq++}`) as unknown as string;

function idsLeft(w: WaitingQueues, left: WeakRef<object>[]): void {
  for (let round = 0; round < 60; round++) {
    const ids = Array.from({ length: 16 }, id);
    for (const x of ids) w.add(x, 1);
    for (const x of ids) {
      assert.equal(w.leave(x), true);
      left.push(new WeakRef(x as unknown as object));
    }
  }
  const waiting = id();
  w.add(waiting, 1);
  for (let round = 0; round < 60; round++) {
    const ids = Array.from({ length: 16 }, id);
    for (const x of ids) w.add(x, 1);
    for (const x of ids) {
      assert.equal(w.leave(x), true, 'out of order: the oldest still waits');
      left.push(new WeakRef(x as unknown as object));
    }
  }
}

test('ids that left the waiting queues are not kept, whether the queue emptied or not', async () => {
  const w = new WaitingQueues();
  const left: WeakRef<object>[] = [];
  idsLeft(w, left);
  assert.deepEqual(w.depthByLevel(), [[1, 1]]);
  assert.equal(await collected(left), left.length, 'every id that left is collectable');
});

function longTimeoutsBatched(q: PriorityQueues, taken: WeakRef<object>[]): void {
  const short = entry();
  short.deadlineUs = 1_000; // waits (say a lower level) with the earliest deadline: the heap's top stays live
  short.level = 2;
  q.push(short);
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < 16; i++) {
      const e = entry();
      e.deadlineUs = 60_000_000;
      q.push(e);
    }
    for (const e of q.takeFirst(16)) taken.push(new WeakRef(e));
  }
}

test('batched requests with a long timeout are not held by the deadline heap behind a waiting short one', async () => {
  const q = new PriorityQueues(1);
  const taken: WeakRef<object>[] = [];
  longTimeoutsBatched(q, taken);
  assert.equal(q.size, 1);
  assert.equal(q.nextDeadline(), 1_000);
  // the heap is rebuilt when a push finds the batched outnumbering the waiting (2x + 64): at most that
  // many stay, plus the last batch pushed after the last rebuild (60 rounds held all 960 before)
  const n = await collected(taken);
  assert.ok(n >= taken.length - (2 * q.size + 64 + 16), `${n} of ${taken.length} batched entries collectable`);
});
