import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DELAY_TRACK, delayAt, positionOf } from '../src/controls/delay-scale.ts';
import { LIVE_LIMITS } from '@inferscope/core/live-config';

test('the delay slider is logarithmic: 0-5 ms takes most of the track, not its first 5%', () => {
  assert.equal(delayAt(0), 0);
  assert.equal(delayAt(DELAY_TRACK), LIVE_LIMITS.max_queue_delay_microseconds.sliderMax);
  assert.ok(positionOf(5000) > DELAY_TRACK * 0.5, `5 ms at ${positionOf(5000)} of ${DELAY_TRACK}`);
  assert.ok(positionOf(1000) > DELAY_TRACK * 0.3);
  let last = -1;
  for (let p = 0; p <= DELAY_TRACK; p++) {
    const v = delayAt(p);
    assert.ok(v >= last, 'monotonic');
    assert.ok(v >= LIVE_LIMITS.max_queue_delay_microseconds.min && v <= LIVE_LIMITS.max_queue_delay_microseconds.max);
    last = v;
  }
});

test('values land on two significant digits and positions round-trip', () => {
  for (const p of [1, 10, 250, 500, 777, 999]) {
    const v = delayAt(p);
    assert.equal(Number(v.toPrecision(2)), v, `${v} has two significant digits`);
    assert.ok(Math.abs(delayAt(positionOf(v)) - v) <= v * 0.02, `${v} -> ${positionOf(v)} -> ${delayAt(positionOf(v))}`);
  }
  assert.equal(positionOf(10 ** 9), DELAY_TRACK, 'past the track: its end');
});
