// A shared link's knobs are live changes planned by core's planner, as the server plans a control message:
// what the server would accept opens as the demo, what it refuses leaves the lesson's own values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyKnobs } from '../src/teach/knobs';
import { LESSONS } from '../src/teach/lessons';

const scenario = () => LESSONS.find((l) => l.id === 'batching')!.scenario(1);
const db = (s: ReturnType<typeof scenario>) => s.models[0].config.dynamic_batching as Record<string, unknown>;

test('accepted knobs set the first model: delay, preferred sizes, a lower max batch, instances', () => {
  const s = applyKnobs(scenario(), { delay: 2000, pbs: [4, 8], mbs: 16, inst: 3 });
  assert.equal(db(s).max_queue_delay_microseconds, 2000);
  assert.deepEqual(db(s).preferred_batch_size, [4, 8]);
  assert.equal(s.models[0].config.max_batch_size, 16);
  assert.equal(s.models[0].config.instance_group?.[0].count, 3);
});

test('knobs the server would refuse leave the lesson as shipped', () => {
  const shipped = scenario();
  const loaded = shipped.models[0].config.max_batch_size!;
  // a max batch above the loaded model's, and preferred sizes above the max batch
  for (const k of [{ mbs: loaded + 1 }, { pbs: [loaded * 2] }, { mbs: 8, pbs: [16] }, { inst: 0 }, { inst: 65 }]) {
    const s = applyKnobs(scenario(), k);
    assert.deepEqual(s.models[0].config, shipped.models[0].config, JSON.stringify(k));
  }
  // a refused batching knob does not take an accepted instance count with it
  const s = applyKnobs(scenario(), { mbs: loaded + 1, inst: 2 });
  assert.equal(s.models[0].config.max_batch_size, loaded);
  assert.equal(s.models[0].config.instance_group?.[0].count, 2);
});
