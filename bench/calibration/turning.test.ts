import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RealClock } from '@inferscope/core/clock';
import { installTurningWatch, turning } from './turning';

installTurningWatch();
const clock = new RealClock();

test('turning: true while a sub-millisecond wait is pending, false once it fired or was cleared, never for a sleep', async () => {
  assert.equal(turning(), false);
  const sleeping = clock.setTimer(clock.now() + 50_000, () => assert.fail('cleared'));
  assert.equal(turning(), false, 'a wait of 50 ms sleeps in setTimeout');
  // Cleared before the loop turns at all, so this holds however late the machine runs.
  const cleared = clock.setTimer(clock.now() + 400, () => assert.fail('cleared'));
  assert.equal(turning(), true);
  clock.clearTimer(cleared);
  clock.clearTimer(cleared); // twice: counted once
  assert.equal(turning(), false);
  // Two short waits: when the earlier fires the later one is still pending (the earlier is checked first on
  // every turn, even if a stalled machine let both deadlines pass), and it must still count.
  let seenInside: boolean | undefined;
  let laterFired = false;
  const fired = new Promise<void>((resolve) => clock.setTimer(clock.now() + 200, () => { seenInside = turning(); resolve(); }));
  const later = clock.setTimer(clock.now() + 400, () => { laterFired = true; });
  await fired;
  assert.equal(seenInside, true, 'the other short wait still turns the loop');
  clock.clearTimer(later); // whether or not it fired meanwhile: no double count either way
  assert.equal(turning(), false, `later wait ${laterFired ? 'fired' : 'cleared'}`);
  clock.clearTimer(sleeping);
  installTurningWatch(); // a second install does not wrap twice
  const once = clock.setTimer(clock.now() + 300, () => undefined);
  clock.clearTimer(once);
  assert.equal(turning(), false);
});
