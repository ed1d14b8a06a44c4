/** The conversations form: START first, END last (none for the abandoned ones), time order, seeded. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sequenceArrivals, type SequenceTraffic } from './sequence-traffic';

const traffic: SequenceTraffic = { count: 4, length: { min: 2, max: 4 }, start_every_us: 1000, step_gap_us: 3000, first_id: 100, abandoned: [3] };

test('sequence traffic: START first, END last, in time order, the same for the same seed', () => {
  const a = sequenceArrivals(traffic, 7);
  assert.deepEqual(a, sequenceArrivals(traffic, 7));
  for (let i = 1; i < a.length; i++) assert.ok(a[i - 1]!.t_us <= a[i]!.t_us);
  const byId = new Map<string, typeof a>();
  for (const x of a) byId.set(String(x.sequence.id), [...(byId.get(String(x.sequence.id)) ?? []), x]);
  assert.deepEqual([...byId.keys()], ['100', '101', '102', '103']);
  for (const [id, steps] of byId) {
    assert.ok(steps.length >= 2 && steps.length <= 4);
    assert.equal(steps[0]!.sequence.start, true);
    assert.ok(steps.slice(1).every((s) => !s.sequence.start));
    // sequence 3 is abandoned: no END (it goes idle)
    assert.equal(steps.at(-1)!.sequence.end, id !== '103');
    assert.ok(steps.slice(0, -1).every((s) => !s.sequence.end));
  }
  assert.throws(() => sequenceArrivals({ ...traffic, length: { min: 3, max: 2 } }, 1), /length.max 2 is below length.min 3/);
  assert.throws(() => sequenceArrivals({ ...traffic, count: 0 }, 1), /count must be an integer >= 1/);
  assert.throws(() => sequenceArrivals({ ...traffic, abandoned: [4] }, 1), /abandoned sequence 4 is not one of 0..3/);
});
