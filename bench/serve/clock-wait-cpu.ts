/**
 * What a batch delay's wait costs the main thread: RealClock timers at a steady rate (a server at moderate
 * load arms one per batch), with the sub-millisecond rest of each wait re-checked turn by turn (core's
 * default) against slept in the server's fine-wait thread (apps/server/src/timing/fine-wait.ts), in
 * alternating rounds. Prints this thread's CPU per timer (the wait's own cost: the loop does nothing else)
 * and how late the timers fired (median, p99). Nothing else runs here, so the figures are the clock's.
 *
 *   node --import tsx bench/serve/clock-wait-cpu.ts [--delay-us 2000] [--rate 200] [--ms 2000] [--rounds 3]
 */
import { RealClock } from '@inferscope/core/clock';
import { fineWait } from '../../apps/server/src/timing/fine-wait';
import { arg } from '../args';
import { median } from '../median';
import { hostConditions } from '../host';

const delayUs = Number(arg('--delay-us', '2000'));
const rate = Number(arg('--rate', '200'));
const ms = Number(arg('--ms', '2000'));
const rounds = Number(arg('--rounds', '3'));

/** this thread's CPU in µs (process.threadCpuUsage is newer than Node 20: the process's, nothing else runs) */
const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function round(clock: RealClock): Promise<{ cpuPerTimer: number; lateP50: number; lateP99: number }> {
  const late: number[] = [];
  const cpu0 = cpuUs();
  const end = Date.now() + ms;
  await new Promise<void>((resolve) => {
    const arm = (): void => {
      const at = clock.now() + delayUs;
      clock.setTimer(at, () => {
        late.push(clock.now() - at);
        if (Date.now() < end) setTimeout(arm, Math.max(0, 1000 / rate - delayUs / 1000));
        else resolve();
      });
    };
    arm();
  });
  const cpu = cpuUs() - cpu0;
  late.sort((a, b) => a - b);
  return { cpuPerTimer: cpu / late.length, lateP50: median(late), lateP99: late[Math.floor(late.length * 0.99)] };
}

const clocks = { 'turn by turn': new RealClock(), 'fine-wait thread': new RealClock(fineWait) };
await round(clocks['fine-wait thread']); // starts the thread, warms both paths
console.log(`timers of ${delayUs} µs at ${rate}/s, ${rounds} alternating rounds of ${ms} ms, ${hostConditions()}`);
const ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  const a = await round(clocks['turn by turn']);
  const b = await round(clocks['fine-wait thread']);
  ratios.push(b.cpuPerTimer / a.cpuPerTimer);
  for (const [name, x] of [['turn by turn', a], ['fine-wait thread', b]] as const) {
    console.log(`round ${r + 1} ${name.padEnd(16)}: CPU ${x.cpuPerTimer.toFixed(0)} µs per timer, late p50 ${x.lateP50.toFixed(0)} µs, p99 ${x.lateP99.toFixed(0)} µs`);
  }
}
console.log(`median CPU per timer, fine-wait / turn by turn: ${median(ratios).toFixed(3)}`);
