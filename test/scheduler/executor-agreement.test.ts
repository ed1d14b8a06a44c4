/**
 * The executors agree (issue 55): the same traces through the one scheduler form the same batches, at the
 * same times, whichever executor runs them. What an executor changes in the scheduler's eyes is its
 * contract: how many batches an instance may hold behind its running one (`prefetch`) and whether one can
 * be taken back before it begins (`reclaim`). The simulator's instances take a batch only when idle
 * (prefetch 0) or hold one as the server's do; the onnxruntime and stub executors declare theirs, read here
 * from the real classes. Each leg runs on the VirtualClock with the simulator's fixed-cost instances
 * honouring that contract (SimExecutor: a held batch begins the moment the running one ends, and can be
 * taken back until then). Traces: the examples, Triton's qa/L0_batcher shapes (bursts of equal
 * requests, requests of several samples, preferred sizes, delays), and seeded random traffic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '@inferscope/core/load/rng.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import { OrtExecutor, type OrtModelPlan } from '../../apps/server/src/backends/onnxruntime/executor';
import { StubExecutor } from '../../apps/server/src/backends/stub/executor';
import { runTrace, shown, type Arrival } from './trace-runner.ts';

type Plan = ConstructorParameters<typeof StubExecutor>[0];
const quiet = { model: 'm', version: '1', log: () => undefined };
// constructing an executor starts nothing: instances start on startInstance
const ort = new OrtExecutor(quiet as unknown as OrtModelPlan);
const stub = new StubExecutor(quiet as unknown as Plan);

const LEGS = [
  { name: 'simulator (idle instances only)', prefetch: 0 },
  { name: 'simulator (as the server)', prefetch: 1 },
  { name: 'onnxruntime', prefetch: ort.prefetch },
  { name: 'stub', prefetch: stub.prefetch },
];

interface Case {
  what: string;
  config: SchedulerConfigInput;
  trace: Arrival[];
  cost: { fixed_us: number; per_item_us: number };
  instances: number;
}

function randomCase(seed: number): Case {
  const r = new Rng(seed);
  const maxBatch = r.int(1, 16);
  const preferred = [...new Set(Array.from({ length: r.int(0, 3) }, () => r.int(1, maxBatch)))];
  const delay = r.next() < 0.25 ? 0 : r.int(50, 3000);
  // one config in five without prefetch (priority levels: Triton forms a batch only for a free instance)
  const levels = r.next() < 0.2 ? { priority_levels: 2, default_priority_level: 1 } : {};
  const config = { max_batch_size: maxBatch, dynamic_batching: { preferred_batch_size: preferred, max_queue_delay_microseconds: delay, ...levels } };
  const trace: Arrival[] = [];
  let t = 0;
  for (let i = 0, n = r.int(5, 60); i < n; i++) {
    // bursts: a third of the requests arrive with the one before
    if (r.next() > 0.33) t += Math.round(r.expGapUs(1e6 / r.int(200, 4000)));
    trace.push([`q${i}`, r.int(1, Math.max(1, Math.ceil(maxBatch / 2))), t]);
  }
  return { what: `seed ${seed}`, config, trace, cost: { fixed_us: r.int(200, 3000), per_item_us: r.int(0, 200) }, instances: r.int(1, 3) };
}

const db = (maxBatch: number, preferred: number[], delayUs: number) => ({
  max_batch_size: maxBatch,
  dynamic_batching: { preferred_batch_size: preferred, max_queue_delay_microseconds: delayUs },
});
const burst = (prefix: string, n: number, bs: number, at: number): Arrival[] => Array.from({ length: n }, (_, i) => [`${prefix}${i}`, bs, at] as const);

const CASES: Case[] = [
  { what: 'issue 55 example 1', config: db(8, [4], 500), trace: [['r0', 4, 0], ['r1', 1, 100], ['r2', 1, 110], ['r3', 1, 120], ['r4', 1, 130], ['r5', 4, 700]], cost: { fixed_us: 1000, per_item_us: 0 }, instances: 1 },
  { what: 'issue 55 example 2', config: db(16, [4], 500), trace: [['r0', 4, 0], ['r1', 5, 100], ['r2', 5, 200]], cost: { fixed_us: 2000, per_item_us: 0 }, instances: 1 },
  { what: 'issue 55 example 3', config: db(8, [4, 8], 300), trace: [['r0', 8, 0], ['r1', 4, 100], ['r2', 3, 200]], cost: { fixed_us: 1000, per_item_us: 0 }, instances: 1 },
  // L0_batcher shapes: preferred [2, 6], max 8 (test_multi_batch_*), several instances, delays of the test's order
  { what: 'L0 preferred [2, 6] bursts', config: db(8, [2, 6], 0), trace: [...burst('a', 3, 1, 0), ...burst('b', 5, 1, 100), ...burst('c', 2, 3, 150)], cost: { fixed_us: 2000, per_item_us: 100 }, instances: 2 },
  { what: 'L0 delayed sum > max preferred', config: db(8, [2, 6], 3000), trace: [['a', 3, 0], ['b', 4, 50], ['c', 1, 2000], ...burst('d', 4, 2, 2500)], cost: { fixed_us: 4000, per_item_us: 0 }, instances: 1 },
  { what: 'L0 max queue delay only', config: db(8, [], 1000), trace: [...burst('a', 3, 1, 0), ...burst('b', 3, 2, 400), ...burst('c', 6, 1, 1300)], cost: { fixed_us: 1500, per_item_us: 50 }, instances: 1 },
];
for (let seed = 1; seed <= 150; seed++) CASES.push(randomCase(seed));

test('the server executors declare the contract the agreement legs model', () => {
  assert.equal(ort.prefetch, 1);
  assert.equal(stub.prefetch, 1);
  assert.equal(typeof ort.reclaim, 'function');
  assert.equal(typeof stub.reclaim, 'function');
});

test('the simulator and both server executors form the same batches at the same times on every trace', () => {
  let merged = 0;
  let grown = 0;
  for (const c of CASES) {
    const runs = LEGS.map((leg) => runTrace(c.config, c.trace, c.cost, leg.prefetch, c.instances));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.answers.size, c.trace.length, `${c.what}, ${LEGS[i].name}: every request answered`);
      assert.ok([...run.answers.values()].every((n) => n === 1), `${c.what}, ${LEGS[i].name}: answered once`);
      assert.deepEqual(shown(run), shown(runs[0]), `${c.what}: ${LEGS[i].name} against ${LEGS[0].name}`);
    }
    // how often the traces exercise the classes of issue 55 (so this cannot pass vacuously)
    const sizes = new Map(c.trace.map(([id, bs]) => [id, bs]));
    for (const b of runs[0].batches) {
      const size = b.ids.reduce((n, id) => n + sizes.get(id)!, 0);
      const pref = (c.config.dynamic_batching?.preferred_batch_size ?? []) as number[];
      if (pref.length > 0 && size > Math.max(...pref)) grown++;
    }
    merged += runs[0].events.filter((e) => e.type === 'batch.formed' && e.oldest_wait_us > (c.config.dynamic_batching?.max_queue_delay_microseconds as number)).length;
  }
  assert.ok(grown > 10, `batches past the largest preferred size: ${grown}`);
  assert.ok(merged > 10, `batches whose oldest waited past the delay: ${merged}`);
});
