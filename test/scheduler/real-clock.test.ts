import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LONGEST_TIMER_MS, RealClock, timerDelayMs } from '../../packages/core/src/clock/index.ts';

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

/** setTimeout calls made while `arm` runs (RealClock decides how to wait synchronously, in setTimer) */
function setTimeoutCallsDuring(arm: () => void): number {
  const real = globalThis.setTimeout;
  let calls = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    calls++;
    return real(...args);
  }) as typeof setTimeout;
  try {
    arm();
  } finally {
    globalThis.setTimeout = real;
  }
  return calls;
}

test('a sub-millisecond timer never fires early and waits turn by turn, not in setTimeout', async () => {
  for (let i = 0; i < 20; i++) {
    // No real-time bound (a loaded machine can delay any wait): the structural fact that lets a 250 µs
    // wait finish under a millisecond is that it is checked on every loop turn instead of sleeping in
    // setTimeout, whose granularity is a whole millisecond.
    let fired!: Promise<{ lateUs: number; waitedUs: number }>;
    assert.equal(setTimeoutCallsDuring(() => (fired = fireAfter(250))), 0, 'a 250 µs wait does not sleep in setTimeout');
    const { lateUs } = await fired;
    assert.ok(lateUs >= 0, `fired ${-lateUs} µs early`);
  }
  let long!: Promise<unknown>;
  assert.equal(setTimeoutCallsDuring(() => (long = fireAfter(4500))), 1, 'a 4.5 ms wait sleeps in one setTimeout');
  await long;
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

test('a deadline already reached runs on the next turn without the fine wait; a future one sleeps in it', async () => {
  const asked: number[] = [];
  const spied = new RealClock((atUs, fn) => {
    asked.push(atUs);
    setImmediate(fn); // the clock re-checks, so an early call only re-arms
  });
  await new Promise<void>((resolve) => spied.setTimer(spied.now(), resolve));
  await new Promise<void>((resolve) => spied.setTimer(spied.now() - 500, resolve));
  assert.deepEqual(asked, [], 'a timer at or before now is one turn, not a thread wake-up and a message back');
  const at = spied.now() + 300;
  await new Promise<void>((resolve) => spied.setTimer(at, resolve));
  assert.ok(asked.length >= 1 && asked.every((a) => a === at), 'the sub-millisecond rest of a future deadline goes to the fine wait');
});

test('a timer weeks away sleeps once, for what a host timer holds (a longer setTimeout fires after 1 ms)', () => {
  const delays: number[] = [];
  const real = globalThis.setTimeout;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    delays.push(ms ?? 0);
    return real(fn, 0);
  }) as typeof setTimeout;
  let handle: ReturnType<RealClock['setTimer']>;
  try {
    handle = clock.setTimer(clock.now() + 30 * 24 * 3600 * 1e6, () => assert.fail('fired weeks early'));
  } finally {
    globalThis.setTimeout = real;
  }
  clock.clearTimer(handle);
  assert.deepEqual(delays, [LONGEST_TIMER_MS]);
  assert.equal(timerDelayMs(5), 5);
  assert.equal(timerDelayMs(1e12), LONGEST_TIMER_MS);
});
