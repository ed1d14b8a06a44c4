import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PacedClock } from '../../apps/server/src/loadgen/generator/paced-clock.ts';

test('the generator clock: timers never fire early, fire in time order, can be cleared, may be set from a firing timer', async () => {
  const clock = new PacedClock();
  const t0 = clock.now();
  const fired: { name: string; late: number }[] = [];
  const at = (name: string, us: number) => clock.setTimer(t0 + us, () => fired.push({ name, late: clock.now() - (t0 + us) }));
  at('c', 4_000); // setTimeout, then slices
  at('a', 300); // slices only
  const gone = at('x', 2_000);
  at('b', 1_200);
  clock.clearTimer(gone);
  await new Promise<void>((resolve) =>
    clock.setTimer(t0 + 600, () => {
      // a timer set from a firing one, due before 'b'. An absolute time: on a loaded machine this timer
      // may itself fire late, and the order asserted is the clock's time order, not real time.
      clock.setTimer(t0 + 1_100, () => fired.push({ name: 'from-a-timer', late: 0 }));
      clock.setTimer(t0 + 5_000, resolve);
    }),
  );
  assert.deepEqual(fired.map((f) => f.name), ['a', 'from-a-timer', 'b', 'c']);
  for (const f of fired) assert.ok(f.late >= 0, `${f.name} fired ${-f.late} µs early`);
  // nothing left: the thread may exit
  assert.ok(clock.now() - t0 >= 5_000);
});
