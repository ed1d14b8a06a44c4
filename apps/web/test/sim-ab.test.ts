import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulateAb } from '../src/teach/sim-ab';
import { LESSONS, SPEEDS } from '../src/teach/lessons';

test('simulated A/B on the batching lesson: a longer delay makes bigger batches on identical traffic', () => {
  const lesson = LESSONS.find((l) => l.id === 'batching')!;
  const [a, b] = simulateAb(lesson.scenario(1), 0, 2000);
  assert.ok(a.completed > 0 && b.completed > 0);
  assert.ok(b.avgBatch > a.avgBatch, `avg batch ${a.avgBatch} -> ${b.avgBatch}`);
  assert.ok(b.p50Us > a.p50Us, 'waiting for a batch costs latency');
  // same seed, same arrivals: running it again gives the same numbers
  assert.deepEqual(simulateAb(lesson.scenario(1), 0, 2000), [a, b]);
});

test('every lesson builds a scenario the simulator accepts', () => {
  for (const l of LESSONS) {
    const s = l.scenario(3);
    assert.ok(s.models.length > 0, l.id);
    assert.ok(s.traffic.rate > 0, l.id);
    assert.ok(SPEEDS.some(([v]) => v === l.speed), `${l.id} starts at an offered speed`);
  }
});
