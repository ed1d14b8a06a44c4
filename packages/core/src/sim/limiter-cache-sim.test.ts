/**
 * The simulator with the server's rate limiter and response cache (simulation.ts `rateLimit`,
 * `responseCache`, `repeats`), on the virtual clock: two heavy models on one core without the limiter run
 * at once and each batch takes about twice as long; with it they take turns (no two batches overlap), and
 * the lower priority weight gets more turns. The cache answers repeats at the door (never batched, no
 * queue) and a unique input only pays the lookup; every request is answered once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Scenario } from '../load/scenario';
import type { BatchCompletedEvent, BatchStartedEvent, RequestCacheEvent, SchedulerEvent } from '../events';
import { createSimulation, simulate, type SimulationOptions } from './simulation';

const COST = { fixed_us: 2000, per_item_us: 250, kind: 'KIND_CPU' };
const heavy = (name: string, priority: number) => ({
  name, max_batch_size: 8, dynamic_batching: {},
  instance_group: [{ count: 1, kind: 'KIND_CPU', rate_limiter: { resources: [{ name: 'accel', count: 1 }], priority } }],
});
// both models offered more than the shared core serves: they compete for every turn
const busy: Scenario = { name: 'two', seed: 3, phases: [{ type: 'poisson', rate: 6000, duration_s: 0.2 }], models: [{ value: 'a', weight: 1 }, { value: 'b', weight: 1 }] };
const run = (mode: 'off' | 'execution_count', prioB = 1) =>
  simulate({ scenario: busy, configs: [heavy('a', 1), heavy('b', prioB)], cost: COST, cores: 1, seed: 3, prefetch: 0, rateLimit: { mode } }).events;
const of = <T extends SchedulerEvent['type']>(events: SchedulerEvent[], type: T) => events.filter((e): e is Extract<SchedulerEvent, { type: T }> => e.type === type);
const solo = (size: number) => COST.fixed_us + COST.per_item_us * size;

function spans(events: SchedulerEvent[]) {
  const start = new Map(of(events, 'batch.started').map((e: BatchStartedEvent) => [e.batch_id, e.t]));
  return of(events, 'batch.completed').map((e: BatchCompletedEvent) => ({ model: e.model, from: start.get(e.batch_id)!, to: e.t, size: e.size, us: e.compute_us }));
}

test('limiter off: the two models run at once on the one core, and a batch that shares it takes twice its solo time', () => {
  const s = spans(run('off'));
  const overlapping = s.filter((x) => s.some((y) => y !== x && y.model !== x.model && y.from < x.to && x.from < y.to));
  assert.ok(overlapping.length > s.length / 2, `${overlapping.length} of ${s.length} batches overlap another model's`);
  const slowed = s.filter((x) => Math.abs(x.us - 2 * solo(x.size)) < 1);
  assert.ok(slowed.length > s.length / 2, `${slowed.length} of ${s.length} took twice their solo time`);
});

test('limiter on (execution_count, one accel): the models take turns, never overlapping, each batch at its solo time', () => {
  const events = run('execution_count');
  const s = spans(events).sort((x, y) => x.from - y.from);
  for (let i = 1; i < s.length; i++) assert.ok(s[i]!.from >= s[i - 1]!.to, `batch ${i} starts at ${s[i]!.from} before ${s[i - 1]!.to}`);
  for (const x of s) assert.equal(x.us, solo(x.size));
  // a batch formed while the other model held the accel waited for it: formed before it started
  const formed = new Map(of(events, 'batch.formed').map((e) => [e.batch_id, e.t]));
  const waited = of(events, 'batch.started').filter((e) => e.t > formed.get(e.batch_id)!);
  assert.ok(waited.length > 10, `${waited.length} batches waited for the resource`);
  // equal priorities: equal turns while both compete (the traffic's 0.2 s; after it each drains its own queue), within one
  const turns = (m: string) => s.filter((x) => x.model === m && x.from < 200_000).length;
  assert.ok(Math.abs(turns('a') - turns('b')) <= 1, `${turns('a')} vs ${turns('b')}`);
});

test('priority is a weight: b at priority 3 gets about a third of a\'s turns while both compete', () => {
  const s = spans(run('execution_count', 3));
  const turns = (m: string) => s.filter((x) => x.model === m && x.from < 200_000).length;
  const ratio = turns('a') / turns('b');
  assert.ok(ratio > 2.5 && ratio < 3.5, `a ${turns('a')} vs b ${turns('b')}`);
});

const cacheRun = (repeats: number, cache = true, lookupUs = 0) => {
  const o: SimulationOptions = {
    scenario: { name: 'light', seed: 5, phases: [{ type: 'poisson', rate: 200, duration_s: 0.5 }] },
    configs: { name: 'm', max_batch_size: 0, instance_group: [{ count: 1, kind: 'KIND_CPU' }], response_cache: { enable: true } },
    cost: COST, cores: 1, seed: 5, repeats, ...(cache ? { responseCache: { size_bytes: 1 << 20, lookup_us: lookupUs } } : {}),
  };
  const sim = createSimulation(o);
  sim.runToEnd();
  return { events: sim.events, summary: sim.summary(), sim };
};

test('cache: half the inputs repeated are answered at the door, never batched; compute halves; every request answered once', () => {
  const off = cacheRun(0.5, false);
  const on = cacheRun(0.5);
  const hits = of(on.events, 'request.cache').filter((e: RequestCacheEvent) => e.outcome === 'hit');
  const misses = of(on.events, 'request.cache').filter((e) => e.outcome === 'miss');
  const sent = on.summary.requests.sent;
  assert.ok(hits.length > 0.4 * sent && hits.length < 0.6 * sent, `${hits.length} hits of ${sent}`);
  assert.equal(hits.length + misses.length, sent);
  const batched = new Set(of(on.events, 'batch.formed').flatMap((e) => e.request_ids));
  for (const h of hits) {
    assert.ok(!batched.has(h.request_id), `hit ${h.request_id} was batched`);
    assert.equal(h.queue_us, 0);
  }
  const answered = [...hits.map((h) => h.request_id), ...of(on.events, 'request.completed').map((e) => e.request_id)];
  assert.equal(new Set(answered).size, sent);
  assert.equal(answered.length, sent);
  assert.equal(on.summary.requests.completed, sent, 'the summary counts a hit as answered');
  const compute = (e: SchedulerEvent[]) => of(e, 'batch.completed').reduce((n, b) => n + b.compute_us, 0);
  const ratio = compute(on.events) / compute(off.events);
  assert.ok(ratio > 0.4 && ratio < 0.6, `compute ${ratio}`);
  assert.equal(on.sim.cache!.stats().hits, hits.length);
});

test('cache: unique inputs never hit; the compute is the uncached run\'s, and each request pays the lookup', () => {
  const off = cacheRun(0, false);
  const on = cacheRun(0, true, 5);
  assert.equal(of(on.events, 'request.cache').filter((e) => e.outcome === 'hit').length, 0);
  const compute = (e: SchedulerEvent[]) => of(e, 'batch.completed').reduce((n, b) => n + b.compute_us, 0);
  assert.equal(compute(on.events), compute(off.events));
  // every answer comes the lookup later than without the cache (the scheduler's own latency starts at its queue)
  const answers = (e: SchedulerEvent[]) => of(e, 'request.completed').map((c) => c.t);
  assert.deepEqual(answers(on.events), answers(off.events).map((t) => t + 5));
  // with repeats, a hit is answered the lookup after it arrived
  const hit = of(cacheRun(0.5, true, 5).events, 'request.cache').find((e) => e.outcome === 'hit')!;
  assert.equal(hit.total_us, 5);
});

test('deterministic: the same options give the same events', () => {
  assert.deepEqual(run('execution_count', 2), run('execution_count', 2));
  assert.deepEqual(cacheRun(0.5).events, cacheRun(0.5).events);
});

test('a sequence model is refused with a limiter on, never simulated without it', () => {
  assert.throws(() => createSimulation({
    scenario: busy, configs: { name: 's', max_batch_size: 2, sequence_batching: {}, instance_group: [{ count: 1 }] }, rateLimit: { mode: 'execution_count' },
  }), /does not ask the rate limiter/);
});

test('resources the server cannot give fail the run at once, in the limiter\'s words', () => {
  const needsTwo = { ...heavy('a', 1), instance_group: [{ count: 1, kind: 'KIND_CPU', rate_limiter: { resources: [{ name: 'accel', count: 2 }] } }] };
  assert.throws(() => createSimulation({ scenario: busy, configs: [needsTwo, heavy('b', 1)], rateLimit: { mode: 'execution_count', resources: [{ name: 'accel', count: 1, device: null }] } }), /accel/);
  // off: Triton ignores the resources, and so does the simulation
  assert.doesNotThrow(() => createSimulation({ scenario: busy, configs: [needsTwo, heavy('b', 1)], rateLimit: { mode: 'off', resources: [{ name: 'accel', count: 1, device: null }] } }));
});
