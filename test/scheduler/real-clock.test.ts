import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RealClock } from '../../packages/core/src/clock/index.ts';

const clock = new RealClock();
const fireAfter = (delayUs: number): Promise<{ lateUs: number; waitedUs: number }> =>
  new Promise((resolve) => {
    const t0 = clock.now();
    const at = t0 + delayUs;
    clock.setTimer(at, () => {
      const now = clock.now();
      resolve({ lateUs: now - at, waitedUs: now - t0 });
    });
  });

test('a sub-millisecond timer never fires early and waits turn by turn, not in setTimeout', async () => {
  for (let i = 0; i < 20; i++) {
    const fired = fireAfter(250);
    // No real-time bound (a loaded machine can delay any wait): the structural fact that lets a 250 µs
    // wait finish under a millisecond is that it is checked on every loop turn instead of sleeping in
    // setTimeout, whose granularity is a whole millisecond.
    assert.equal(RealClock.turning(), true, 'a 250 µs wait turns the loop');
    const { lateUs } = await fired;
    assert.ok(lateUs >= 0, `fired ${-lateUs} µs early`);
  }
  assert.equal(RealClock.turning(), false);
});

test('longer timers sleep in setTimeout and still never fire early', async () => {
  const { lateUs, waitedUs } = await fireAfter(4500);
  assert.ok(lateUs >= 0, `fired ${-lateUs} µs early`);
  assert.ok(waitedUs >= 4500);
});

test('a past deadline fires on the next turn; a cleared timer never fires', async () => {
  let fired = 0;
  const past = new Promise<void>((resolve) => clock.setTimer(clock.now() - 1000, resolve));
  const h1 = clock.setTimer(clock.now() + 300, () => fired++);
  const h2 = clock.setTimer(clock.now() + 3000, () => fired++);
  clock.clearTimer(h1);
  clock.clearTimer(h2);
  await past;
  // Not a sleep: timers fire in deadline order and never early, so by the time a timer due after h2's
  // deadline fires, h1 and h2 would have fired had clearing not worked.
  await new Promise<void>((resolve) => clock.setTimer(clock.now() + 5000, resolve));
  assert.equal(fired, 0);
});

test('clearing a timer that already fired is harmless', async () => {
  let fired = 0;
  let handle: ReturnType<RealClock['setTimer']> | undefined;
  await new Promise<void>((resolve) => {
    handle = clock.setTimer(clock.now() + 100, () => {
      fired++;
      resolve();
    });
  });
  clock.clearTimer(handle!);
  assert.equal(fired, 1);
});

test('RealClock.turning: true while a sub-millisecond wait is checked turn by turn, false once it fired or was cleared, never for a sleep', async () => {
  assert.equal(RealClock.turning(), false);
  const sleeping = clock.setTimer(clock.now() + 50_000, () => assert.fail('cleared'));
  assert.equal(RealClock.turning(), false, 'a wait of 50 ms sleeps in setTimeout');
  // Cleared before the loop turns at all, so this holds however late the machine runs.
  const cleared = clock.setTimer(clock.now() + 400, () => assert.fail('cleared'));
  assert.equal(RealClock.turning(), true);
  clock.clearTimer(cleared);
  clock.clearTimer(cleared); // twice: counted once
  assert.equal(RealClock.turning(), false);
  // Two short waits: the earlier one is checked first on every turn, so when it fires the later one is
  // still pending (even if a stalled machine let both deadlines pass), and it must still count.
  let seenInside: boolean | undefined;
  let laterFired = false;
  const fired = new Promise<void>((resolve) => clock.setTimer(clock.now() + 200, () => { seenInside = RealClock.turning(); resolve(); }));
  const later = clock.setTimer(clock.now() + 400, () => { laterFired = true; });
  await fired;
  assert.equal(seenInside, true, 'the other short wait still turns the loop');
  clock.clearTimer(later); // whether or not it fired meanwhile: no double count either way
  assert.equal(RealClock.turning(), false, `later wait ${laterFired ? 'fired' : 'cleared'}`);
  clock.clearTimer(sleeping);
  // a sleep that wakes a little early finishes turn by turn, and counts while it does
  await new Promise<void>((resolve) => clock.setTimer(clock.now() + 1500, () => resolve()));
  assert.equal(RealClock.turning(), false);
});
