/**
 * Issue 55: the batches queued for a busy instance behave as Triton's payloads (dynamic_batch_scheduler.cc,
 * instance_queue.cc, payload.cc): they keep growing until an instance takes them, an instance merges the
 * queued payloads that waited past the delay, and the delay's wake-up is armed whatever the instances do.
 * Each trace is worked out by hand (the expected batches and their start and end times), on the VirtualClock,
 * with and without the hand-off an executor may hide (prefetch 1, as the server's executors declare it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideBatch } from '@inferscope/core/scheduler/decide.ts';
import { PayloadQueue } from '@inferscope/core/scheduler/payloads.ts';
import { policyFromConfig } from '@inferscope/core/scheduler/policy.ts';
import { arraySource, type AnyEntry } from '@inferscope/core/scheduler/queue-entry.ts';
import { Harness, ManualExecutor, PrefetchExecutor } from './helpers.ts';
import { runTrace, shown, type Arrival } from './trace-runner.ts';

const PREFETCH = [0, 1];
const db = (maxBatch: number, preferred: number[], delayUs: number) => ({
  max_batch_size: maxBatch,
  dynamic_batching: { preferred_batch_size: preferred, max_queue_delay_microseconds: delayUs },
});
const fixed = (us: number) => ({ fixed_us: us, per_item_us: 0 });

function expectBatches(config: ReturnType<typeof db>, trace: Arrival[], costUs: number, expected: string[], instances = 1): void {
  for (const prefetch of PREFETCH) {
    const run = runTrace(config, trace, fixed(costUs), prefetch, instances);
    assert.deepEqual(shown(run), expected, `executor prefetch ${prefetch}`);
    assert.equal(run.answers.size, trace.length);
    assert.ok([...run.answers.values()].every((n) => n === 1), 'every request answered once');
  }
}

test('a payload queued at the largest preferred size while the instance is busy still grows (issue 55, example 1)', () => {
  // max 8, preferred [4], delay 500, 1000 µs a batch: [r1..r4] is queued at 130 at size 4, not saturated
  // (Triton saturates a preferred size only without a delay); r5 (4) at 700 joins it: [r1..r5] at 1000.
  const trace: Arrival[] = [['r0', 4, 0], ['r1', 1, 100], ['r2', 1, 110], ['r3', 1, 120], ['r4', 1, 130], ['r5', 4, 700]];
  expectBatches(db(8, [4], 500), trace, 1000, ['[r0] 0-1000', '[r1,r2,r3,r4,r5] 1000-2000']);
});

test('an instance merges the queued payloads that waited past the delay into the one it takes (issue 55, example 2)', () => {
  // max 16, preferred [4], delay 500, 2000 µs a batch: r1 (5) and r2 (5) are each past the largest preferred
  // size, so each is a saturated payload of its own; at 2000 r2's payload has waited 1800 > 500 and 5 + 5 fits.
  const trace: Arrival[] = [['r0', 4, 0], ['r1', 5, 100], ['r2', 5, 200]];
  expectBatches(db(16, [4], 500), trace, 2000, ['[r0] 0-2000', '[r1,r2] 2000-4000']);
  // no merge before the delay has passed (strictly), nor past max_batch_size
  expectBatches(db(16, [4], 1800), trace, 2000, ['[r0] 0-2000', '[r1] 2000-4000', '[r2] 4000-6000']);
  expectBatches(db(9, [4], 500), trace, 2000, ['[r0] 0-2000', '[r1] 2000-4000', '[r2] 4000-6000']);
  // without a delay Triton never merges
  expectBatches(db(16, [4], 0), trace, 2000, ['[r0] 0-2000', '[r1] 2000-4000', '[r2] 4000-6000']);
});

test("a waiting payload's delay running out while every instance is busy is noticed (issue 55, example 3)", () => {
  // max 8, preferred [4, 8], delay 300: [r1] is queued at 100 (preferred 4); r2 (3) at 200 makes 7, no
  // preferred size, so the batcher waits for r2's delay: at 500 r2 joins. The instance frees at 1000.
  const trace: Arrival[] = [['r0', 8, 0], ['r1', 4, 100], ['r2', 3, 200]];
  expectBatches(db(8, [4, 8], 300), trace, 1000, ['[r0] 0-1000', '[r1,r2] 1000-2000']);
  // the instance frees before r2's delay runs out: it takes [r1] as it stands, r2 goes on its own
  expectBatches(db(8, [4, 8], 300), trace, 400, ['[r0] 0-400', '[r1] 400-800', '[r2] 800-1200']);
});

test("without Triton's prefetch (priority levels) nothing waits as a payload: the free instance decides, and runs the same batches here", () => {
  const levels = (c: ReturnType<typeof db>) => ({ ...c, dynamic_batching: { ...c.dynamic_batching, priority_levels: 2, default_priority_level: 1 } });
  // at 1000 the oldest waited past the delay: everything that fits goes, as the grown payload would
  const one: Arrival[] = [['r0', 4, 0], ['r1', 1, 100], ['r2', 1, 110], ['r3', 1, 120], ['r4', 1, 130], ['r5', 4, 700]];
  expectBatches(levels(db(8, [4], 500)), one, 1000, ['[r0] 0-1000', '[r1,r2,r3,r4,r5] 1000-2000']);
  expectBatches(levels(db(16, [4], 500)), [['r0', 4, 0], ['r1', 5, 100], ['r2', 5, 200]], 2000, ['[r0] 0-2000', '[r1,r2] 2000-4000']);
  expectBatches(levels(db(8, [4, 8], 300)), [['r0', 8, 0], ['r1', 4, 100], ['r2', 3, 200]], 1000, ['[r0] 0-1000', '[r1,r2] 1000-2000']);
  // where the delay has not run out, the largest preferred size wins at the free instance: [r1..r4], then r5
  const early: Arrival[] = [['r0', 4, 0], ['r1', 1, 100], ['r2', 1, 100], ['r3', 1, 100], ['r4', 1, 100], ['r5', 1, 200]];
  expectBatches(levels(db(8, [4], 5000)), early, 1000, ['[r0] 0-1000', '[r1,r2,r3,r4] 1000-2000', '[r5] 5200-6200']);
});

test("Triton's #8141, followed: a queued payload takes the one request that overshoots the largest preferred size", () => {
  // max 8, preferred [4], delay 5000 (nobody's delay runs out): [r1..r4] is queued at 4; r5 at 200 goes past
  // 4 and joins anyway (Triton remembers "no preferred size" as 0), which saturates it; r6 at 300 starts the
  // next payload and waits for its own delay.
  const trace: Arrival[] = [['r0', 4, 0], ['r1', 1, 100], ['r2', 1, 100], ['r3', 1, 100], ['r4', 1, 100], ['r5', 1, 200], ['r6', 1, 300]];
  expectBatches(db(8, [4], 5000), trace, 1000, ['[r0] 0-1000', '[r1,r2,r3,r4,r5] 1000-2000', '[r6] 5300-6300']);
});

test('Triton, followed: a payload examined for a merge but too large to join stops growing', () => {
  // max 8, preferred [4], delay 500, 2000 µs a batch. [r1] (6) is saturated; [r2] (3) is queued at 700
  // (delay). At 2000 the instance takes [r1] and examines [r2] (waited 1800): 6 + 3 > 8, so it stays, but
  // marked taken: r3 at 3700 cannot join it (3 + 1 = 4 would be preferred) and waits for its own delay.
  const trace: Arrival[] = [['r0', 4, 0], ['r1', 6, 100], ['r2', 3, 200], ['r3', 1, 3700]];
  expectBatches(db(8, [4], 500), trace, 2000, ['[r0] 0-2000', '[r1] 2000-4000', '[r2] 4000-6000', '[r3] 6000-8000']);
  // r3 at 1000, before the examination, joins r2's payload (preferred 4), which then runs as it stands
  const early: Arrival[] = [['r0', 4, 0], ['r1', 6, 100], ['r2', 3, 200], ['r3', 1, 1000]];
  expectBatches(db(8, [4], 500), early, 2000, ['[r0] 0-2000', '[r1] 2000-4000', '[r2,r3] 4000-6000']);
});

test("a payload queued at a smaller preferred size takes a later request only once that request's delay runs out", () => {
  // preferred [2, 4], delay 1000, the instance busy until 2000: [b, c] is queued at 100 (preferred 2); d at
  // 1500 would make 3, no preferred size: the batcher waits for d's delay (2500), the instance frees at 2000.
  const trace: Arrival[] = [['a', 4, 0], ['b', 1, 100], ['c', 1, 100], ['d', 1, 1500]];
  expectBatches(db(4, [2, 4], 1000), trace, 2000, ['[a] 0-2000', '[b,c] 2000-4000', '[d] 4000-6000']);
});

test('at twice the instance count no payload grows until an instance takes one', () => {
  // one instance: cap 2. max 16, preferred [4], delay 100. [p1] (5) is saturated; [p2..p5] is queued at
  // preferred 4, still growing. q at 950 finds two payloads: it cannot join (below the cap it would, #8141).
  // At 1000 the instance takes [p1] and merges [p2..p5] (waited 700); q waits for its delay (1050).
  const trace: Arrival[] = [['r0', 4, 0], ['p1', 5, 200], ['p2', 1, 300], ['p3', 1, 300], ['p4', 1, 300], ['p5', 1, 300], ['q', 1, 950]];
  expectBatches(db(16, [4], 100), trace, 1000, ['[r0] 0-1000', '[p1,p2,p3,p4,p5] 1000-2000', '[q] 2000-3000']);
  // two instances (cap 4): q joins the growing payload, which is merged with it
  const two: Arrival[] = [['r0', 4, 0], ['s0', 4, 0], ...trace.slice(1)];
  expectBatches(db(16, [4], 100), two, 1000, ['[r0] 0-1000', '[s0] 0-1000', '[p1,p2,p3,p4,p5,q] 1000-2000'], 2);
});

test('the decision grows a payload from its size: preferred sizes, the cap, the delay, and a shape behind it', () => {
  const p = policyFromConfig(db(8, [4, 6], 1000));
  const reqs = (...sizes: number[]) => arraySource(sizes.map((bs, i) => ({ batchSize: bs, shapeKey: '', enqueuedUs: i })));
  // payload 2 + [1, 1, 1]: 4 and 5, then 6 is preferred (largest reachable)
  const d = decideBatch(reqs(1, 1, 1, 1, 1), p, 10, { payload: { size: 2, shapeKey: '' } });
  assert.deepEqual([d.kind, d.count, d.size], ['send', 4, 4]);
  // payload 6 (the largest preferred): the next request overshoots at once, #8141: it joins, saturating
  const over = decideBatch(reqs(1, 1), p, 10, { payload: { size: 6, shapeKey: '' } });
  assert.deepEqual([over.kind, over.count, over.kind === 'send' && over.saturated], ['send', 1, true]);
  // payload 3 (no preferred size: grown by a delay) takes whatever waits, unsaturated
  const grow = decideBatch(reqs(2), p, 10, { payload: { size: 3, shapeKey: '' } });
  assert.deepEqual([grow.kind, grow.count, grow.kind === 'send' && grow.saturated], ['send', 1, false]);
  // payload 4 (preferred) + 1 = 5: wait for that request's delay
  const wait = decideBatch(reqs(1), p, 10, { payload: { size: 4, shapeKey: '' } });
  assert.deepEqual([wait.kind, wait.kind === 'wait' && wait.untilUs], ['wait', 1000]);
  // the next request would pass max_batch_size: the payload is done, and that request starts the next one
  const full = decideBatch(reqs(3), p, 10, { payload: { size: 6, shapeKey: '' } });
  assert.deepEqual([full.kind, full.kind === 'wait' && full.saturated], ['wait', true]);
  // another shape right behind the payload: it takes nothing more
  const shape = decideBatch(arraySource([{ batchSize: 1, shapeKey: 'L2', enqueuedUs: 0 }]), p, 10, { payload: { size: 4, shapeKey: 'L1' } });
  assert.deepEqual([shape.kind, shape.kind === 'wait' && shape.shapeCut], ['wait', true]);
});

test('payload queue: merging needs the delay passed strictly, the sum within max_batch_size and the same shape', () => {
  const policy = policyFromConfig(db(8, [4], 100));
  const entry = (id: string, bs: number, at: number, shapeKey = '') => ({ id, batchSize: bs, shapeKey, enqueuedUs: at }) as unknown as AnyEntry;
  const send = (size: number, oldestUs: number, saturated = true) => ({ kind: 'send', count: 1, size, trigger: 'preferred', oldestUs, saturated, shapeCut: false }) as const;
  const q = new PayloadQueue<AnyEntry>();
  q.add([entry('a', 5, 0)], send(5, 0));
  q.add([entry('b', 2, 50)], send(2, 50));
  q.add([entry('c', 2, 60)], send(2, 60, false));
  assert.equal(q.take(policy, 150)?.merged, 0, 'b waited exactly 100: not merged');
  const q2 = new PayloadQueue<AnyEntry>();
  q2.add([entry('a', 5, 0)], send(5, 0));
  q2.add([entry('b', 2, 50)], send(2, 50));
  q2.add([entry('c', 2, 60)], send(2, 60, false));
  const t = q2.take(policy, 500)!;
  assert.deepEqual([t.entries.map((e) => e.id), t.size], [['a', 'b'], 7], 'b merged, c would pass 8');
  assert.equal(q2.growing(), undefined, 'c was examined: it grows no more');
  const q3 = new PayloadQueue<AnyEntry>();
  q3.add([entry('a', 1, 0, 'L1')], send(1, 0));
  q3.add([entry('b', 1, 0, 'L2')], send(1, 0));
  assert.equal(q3.take(policy, 500)?.merged, 0, 'another shape never merges');
});

test('a request of another shape behind a queued payload stops its growth; it starts the next batch once the payload is taken', async () => {
  for (const exec of [new ManualExecutor(), new PrefetchExecutor()]) {
    const h = new Harness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [4], max_queue_delay_microseconds: 1000 } }, exec);
    h.exec = exec;
    await h.start();
    h.send('a', { batchSize: 4 });
    h.clock.advanceTo(100);
    h.send('b', { batchSize: 2, shapeKey: 'L1' });
    h.clock.advanceTo(1100); // b's delay: queued as a payload of 2, still growing
    h.clock.advanceTo(1200);
    h.send('c', { shapeKey: 'L2' }); // cannot join b's payload
    h.clock.advanceTo(1300);
    h.send('d', { shapeKey: 'L1' }); // behind c: waits too, as in Triton
    h.clock.advance(0);
    h.clock.advanceTo(2000);
    h.exec.finish(0);
    h.clock.advance(0);
    const ran = () => h.exec.all.map((b) => b.requests.map((r) => r.id).join(','));
    assert.deepEqual(ran().slice(0, 2), ['a', 'b'], `${exec.constructor.name}: b's payload ran as it stood`);
    h.clock.advanceTo(2300); // d's delay
    h.exec.finish(0);
    h.clock.advance(0);
    h.exec.finish(0);
    h.clock.advance(0);
    h.exec.finish(0);
    assert.deepEqual(ran(), ['a', 'b', 'c', 'd'], exec.constructor.name);
    h.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
  }
});
