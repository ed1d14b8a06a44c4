/**
 * InferScope's batcher against an independent model of Triton's (triton-model.ts), written in the shape of
 * Triton's threads, on seeded random traffic: the same batches, begun at the same times, with and without
 * Triton's prefetch, and with and without the hand-off the server's executors hide. Arrival times are
 * distinct (fractions of a µs apart at most in a burst), so no two events tie.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '@inferscope/core/load/rng.ts';
import { runTritonModel } from './triton-model.ts';
import { runTrace, type Arrival } from './trace-runner.ts';

test('InferScope forms the batches of the model of Triton, at the same times, on 300 seeded traces', () => {
  let batches = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const r = new Rng(seed * 7919);
    const maxBatch = r.int(1, 12);
    const preferred = [...new Set(Array.from({ length: r.int(0, 3) }, () => r.int(1, maxBatch)))].sort((a, b) => a - b);
    const delayUs = r.next() < 0.2 ? 0 : r.int(50, 4000);
    const prefetch = r.next() < 0.8;
    const instances = r.int(1, 3);
    const cost = { fixed_us: r.int(300, 4000), per_item_us: r.int(0, 300) };
    const trace: Arrival[] = [];
    let t = 0;
    for (let i = 0, n = r.int(5, 50); i < n; i++) {
      t += r.next() < 0.3 ? r.next() * 0.5 + 0.01 : r.expGapUs(1e6 / r.int(200, 3000)) + r.next();
      trace.push([`q${i}`, r.int(1, Math.max(1, Math.ceil(maxBatch / 2))), t]);
    }
    const levels = prefetch ? {} : { priority_levels: 2, default_priority_level: 1 };
    const config = { max_batch_size: maxBatch, dynamic_batching: { preferred_batch_size: preferred, max_queue_delay_microseconds: delayUs, ...levels } };
    const expected = runTritonModel(
      { maxBatch, preferred, delayUs, prefetch, instances, costUs: (n) => Math.max(1, Math.round(cost.fixed_us + cost.per_item_us * n)) },
      trace,
    ).map((b) => `[${b.ids.join(',')}] at ${b.startUs}`);
    for (const handOff of [0, 1]) {
      const run = runTrace(config, trace, cost, handOff, instances);
      const got = run.batches.map((b) => `[${b.ids.join(',')}] at ${b.startUs}`);
      assert.deepEqual(got.sort(), [...expected].sort(), `seed ${seed} (max ${maxBatch}, preferred [${preferred}], delay ${delayUs}, prefetch ${prefetch}, ${instances} instances, hand-off ${handOff})`);
    }
    batches += expected.length;
  }
  assert.ok(batches > 1000, `${batches} batches compared`);
});
