/**
 * Measures this host's timer lateness as the server's RealClock sees it, for the simulator's
 * RealClockModel: coarse waits (1-3 ms, setTimeout rounded up to whole ms) give how late the wake-up comes
 * beyond the rounded-up sleep; fine waits (< 1 ms, checked per event-loop turn) how late they fire.
 * Run on an otherwise idle event loop, so it is the host's own figure, not the load's. A coarse wait
 * sleeps (epoll): its tail is how long a sleeping thread takes to get a core back on a busy host, and it
 * stays. A fine wait keeps the loop turning, so a fine sample more than STALL_THRESHOLD_US late is the
 * running thread descheduled: the stall probe's (stall-probe.ts), modelled apart, left out here so it is
 * not counted twice.
 */
import { RealClock } from '@inferscope/core/clock';
import { quantilesOf, STALL_THRESHOLD_US } from '@inferscope/core/sim';
import { REAL_CLOCK_COARSE_US } from '../sim-host/real-clock-model';
import type { TimerProfile } from '../sim-host/schemas';
import { mulberry32 } from '@inferscope/core/load';

export async function measureTimerProfile(samples = 400, seed = 1): Promise<TimerProfile> {
  const clock = new RealClock();
  const rnd = mulberry32(seed);
  const lateAfter = (waitUs: number) =>
    new Promise<number>((resolve) => {
      const at = clock.now() + waitUs;
      clock.setTimer(at, () => resolve(clock.now() - at));
    });
  const coarse: number[] = [];
  const fine: number[] = [];
  for (let i = 0; i < samples; i++) {
    const w = REAL_CLOCK_COARSE_US + 50 + rnd() * 1900; // clear of the switch-over, where rounding decides
    coarse.push((await lateAfter(w)) - (Math.ceil(w / 1000) * 1000 - w));
    fine.push(await lateAfter(50 + rnd() * 850));
  }
  const withoutStalls = (xs: number[]) => {
    const typical = [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return xs.filter((x) => x <= typical + STALL_THRESHOLD_US);
  };
  return { coarse_late_us: quantilesOf(coarse, 1), fine_late_us: quantilesOf(withoutStalls(fine), 1) };
}
