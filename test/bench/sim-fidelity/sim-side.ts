/** The simulated side of a fidelity case: the calibration's cost and the host measured for this run. */
import type { Scenario } from '@inferscope/core/load/index.ts';
import { costFromCalibration, simulate, type Calibration, type GcProfile, type StallProfile, type TimerProfile } from '@inferscope/core/sim/index.ts';
import { configOf, type Case } from './real-run';

export interface SimHost { cores: number; mainUsPerRequest: number; timer: TimerProfile; stalls?: StallProfile; gc?: GcProfile }

export function simulateCase(c: Case, scenario: Scenario, cal: Calibration, host: SimHost, without: ReadonlySet<string>, record = false) {
  const cost = costFromCalibration(cal, 0, !without.has('spread'), !without.has('spin'));
  if (without.has('idle')) delete cost.idle_penalty_us;
  if (without.has('wake')) delete cost.answer_wake_us;
  return simulate({
    scenario, configs: [configOf(c)], seed: 7, record,
    cost: { [c.model]: cost },
    cores: without.has('host') ? cal.host.cpus : host.cores,
    mainThreadUsPerRequest: without.has('host') ? 0 : host.mainUsPerRequest,
    prefetch: without.has('prefetch') ? 0 : 1,
    ...(without.has('timers') ? {} : { timers: host.timer }),
    ...(without.has('stalls') || !host.stalls ? {} : { stalls: host.stalls }),
    ...(without.has('gc') || !host.gc ? {} : { gc: host.gc }),
  });
}
