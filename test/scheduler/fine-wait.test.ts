// The server's fine-wait thread under core's RealClock (apps/server/src/timing/fine-wait.ts): the
// sub-millisecond rest of a wait is slept in a helper thread, and the clock keeps its promises: a timer
// never fires early, a cleared one never fires, each fires once, and the process neither exits while a
// timer waits nor hangs on the sleeping thread once nothing waits. No real-time bounds (a loaded host can
// delay any wait).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { RealClock } from '../../packages/core/src/clock/index.ts';
import { fineWait } from '../../apps/server/src/timing/fine-wait.ts';

const clock = new RealClock(fineWait);

test('timers through the fine-wait thread fire once each, never early, cleared ones never', async () => {
  const fired: string[] = [];
  const early: string[] = [];
  const arm = (name: string, delayUs: number) => {
    const at = clock.now() + delayUs;
    return clock.setTimer(at, () => {
      if (clock.now() < at) early.push(name);
      fired.push(name);
    });
  };
  const cleared = arm('cleared', 400);
  for (let i = 0; i < 20; i++) arm(`t${i}`, [250, 900, 1500, 2300][i % 4] + i);
  clock.clearTimer(cleared);
  await new Promise<void>((resolve) => {
    const poll = () => (fired.length >= 20 ? resolve() : setTimeout(poll, 5));
    poll();
  });
  await new Promise((r) => setTimeout(r, 20)); // a double fire or the cleared one would land by now
  assert.deepEqual(early, []);
  assert.equal(fired.length, 20);
  assert.equal(new Set(fired).size, 20, 'each fired once');
  assert.ok(!fired.includes('cleared'));
});

test('a process waits for a pending fine-wait timer, then exits although the thread sleeps', () => {
  const script = `
    import { RealClock } from './packages/core/src/clock/index.ts';
    import { fineWait } from './apps/server/src/timing/fine-wait.ts';
    const c = new RealClock(fineWait);
    let n = 0;
    const next = () => c.setTimer(c.now() + 600, () => (++n < 5 ? next() : console.log('fired', n)));
    fineWait(c.now(), () => undefined); // starts the thread; the chain below runs once it is up
    setTimeout(next, 300);`;
  // hang detection only: the child must end on its own (it would wait for ever on a thread in Atomics.wait)
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(out.trim(), 'fired 5');
});
