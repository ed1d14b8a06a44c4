/**
 * The simulator runs a stateful model through the sequence batcher the server runs (schedulerKindFor),
 * with conversations from the sequence-traffic form, on the virtual clock: deterministic, every request
 * answered, each sequence keeps one slot from START to END, the backlog waits, and an idle sequence's
 * slot comes back after max_sequence_idle_microseconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Scenario } from '../load/scenario';
import type { SchedulerEvent, SequenceSlotsEvent } from '../events';
import { createSimulation, simulate } from './simulation';
import { sequenceArrivals, type SequenceTraffic } from './sequence-traffic';

const idle: Scenario = { name: 'conversations', seed: 1, phases: [{ type: 'idle', duration_s: 0.001 }] };
const stateful = (strategy: 'direct' | 'oldest', idleUs = 20_000) => ({
  name: 'acc', max_batch_size: 2, instance_group: [{ count: 1, kind: 'KIND_CPU' }],
  sequence_batching: { max_sequence_idle_microseconds: idleUs, ...(strategy === 'oldest' ? { oldest: { max_candidate_sequences: 2 } } : { direct: {} }) },
});
const traffic: SequenceTraffic = { count: 4, length: { min: 2, max: 4 }, start_every_us: 1000, step_gap_us: 3000, first_id: 100, abandoned: [3] };
const slotsEvents = (events: SchedulerEvent[]) => events.filter((e): e is SequenceSlotsEvent => e.type === 'sequence.slots');

for (const strategy of ['direct', 'oldest'] as const) {
  test(`simulation (${strategy}): the sequence batcher runs, each id keeps one slot, the backlog waits, the idle one is reaped`, () => {
    const sim = createSimulation({ scenario: idle, configs: stateful(strategy), sequences: traffic, seed: 7, cost: { fixed_us: 500, per_item_us: 100 } });
    assert.equal(sim.sequenceSchedulers.size, 1);
    assert.equal(sim.schedulers.size, 0);
    sim.runToEnd();
    const sent = sequenceArrivals(traffic, 7);
    const done = sim.events.filter((e) => e.type === 'request.completed').map((e) => e.request_id).sort();
    assert.deepEqual(done, sent.map((a) => a.id!).sort(), 'every request answered once');
    const views = slotsEvents(sim.events);
    assert.equal(views[0]!.view.strategy, strategy);
    // each sequence sits in one slot for its whole life
    const seat = new Map<string, string>();
    let most = 0;
    for (const v of views) {
      most = Math.max(most, v.view.backlog.length);
      for (const inst of v.view.instances) for (const s of inst.slots) {
        if (!s.sequence) continue;
        const where = `${inst.instance}#${s.slot}`;
        const before = seat.get(s.sequence.id);
        assert.ok(before === undefined || before === where, `${s.sequence.id} moved from ${before} to ${where}`);
        seat.set(s.sequence.id, where);
      }
    }
    assert.ok(most > 0, 'four sequences on two slots: some waited in the backlog');
    assert.deepEqual([...seat.keys()].sort(), ['100', '101', '102', '103']);
    // the abandoned sequence (103) lost its slot to the idle timeout: at the end every slot is free, no state
    const last = views.at(-1)!.view;
    assert.ok(last.instances.every((i) => i.slots.every((s) => s.sequence === null)));
    assert.deepEqual(last.backlog, []);
    const lastStep = Math.max(...sent.map((a) => a.t_us));
    assert.ok(views.at(-1)!.t >= lastStep + 20_000, `reaped after the idle time (at ${views.at(-1)!.t})`);
  });
}

test('simulation: deterministic on the virtual clock (same seed, same events)', () => {
  const run = () => simulate({ scenario: idle, configs: stateful('direct'), sequences: traffic, seed: 3, cost: { fixed_us: 400, per_item_us: 50 } }).events;
  assert.deepEqual(run(), run());
});

test('simulation: an iterative-sequence model is refused, not simulated as another kind', () => {
  const config = { ...stateful('direct'), sequence_batching: { iterative_sequence: true } };
  assert.throws(() => createSimulation({ scenario: idle, configs: config, seed: 1 }), /does not run iterative sequences/);
});

test('simulation: a model without sequence_batching still gets the dynamic batcher', () => {
  const sim = createSimulation({ scenario: idle, configs: { name: 'm', max_batch_size: 4, instance_group: [{ count: 1, kind: 'KIND_CPU' }] }, seed: 1 });
  assert.equal(sim.schedulers.size, 1);
  assert.equal(sim.sequenceSchedulers.size, 0);
});
