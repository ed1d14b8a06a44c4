/** The simulated side of a fidelity case: the calibration's cost and the host measured for this run. */
import type { Scenario } from '@inferscope/core/load';
import { costFromCalibration, simulate, type Calibration, type Quantiles, type SimSummary, type StallProfile } from '@inferscope/core/sim';
import { hostModel } from '../sim-host/host-model';
import type { GcProfile, TimerProfile, WakeCost } from '../sim-host/schemas';
import { arg } from '../args';
import { configOf, type Case } from './real-run';

/**
 * mechanisms the simulator leaves out unless asked for with --with: spin-isolated takes the spin wake-up
 * from calibrate's isolated measurement (measureSpinWake) in place of the one measured under the case's
 * traffic, to compare the two
 */
const OPT_IN = ['spin-isolated'];
const MECHANISMS = ['prefetch', 'held', 'timers', 'spread', 'interruptions', 'idle', 'spin', 'spin-isolated', 'spincore', 'wake', 'host', 'stalls', 'gc'];

/**
 * The mechanisms switched off by the command line: `--without LIST` and the opt-in ones not asked for with
 * `--with`; `--also-without LIST` for a second, ablated simulation of every round.
 */
export function mechanismOptions(): { without: Set<string>; alsoWithout: Set<string> } {
  const list = (name: string) => arg(name, '').split(',').filter(Boolean);
  const withOptIn = new Set(list('--with'));
  for (const w of withOptIn) if (!OPT_IN.includes(w)) throw new Error(`--with: unknown opt-in mechanism ${w} (known: ${OPT_IN.join(', ')})`);
  const without = new Set([...list('--without'), ...OPT_IN.filter((m) => !withOptIn.has(m))]);
  const alsoWithout = new Set(list('--also-without'));
  for (const w of [...without, ...alsoWithout]) if (!MECHANISMS.includes(w)) throw new Error(`--without: unknown mechanism ${w} (known: ${MECHANISMS.join(', ')})`);
  return { without, alsoWithout };
}

/**
 * `spinWake`: the spin wake-up under PROBE_S seconds of the case's traffic (wake-probe.ts; rounds saved
 * before it have none); `wake`: calibrate's isolated spin wake-up and its answer wake-up (bench/calibration;
 * rounds saved before the host figures left the product calibration have them in `calibration` instead)
 */
export interface SimHost { cores: number; mainUsPerRequest: number; timer: TimerProfile; stalls?: StallProfile; gc?: GcProfile; spinWake?: Quantiles; wake?: WakeCost }

/** One fidelity round as run.ts saves it: what the simulation was given and what the real server did. */
export interface SavedRound { case: Case; trace: string; calibration: Calibration; host: SimHost; real: SimSummary; load: number }

export function simulateCase(c: Case, scenario: Scenario, cal: Calibration, host: SimHost, without: ReadonlySet<string>, record = false) {
  const spread = !without.has('spread');
  const cost = costFromCalibration(cal, 0, spread);
  const measured = host.wake ?? (cal as Calibration & WakeCost);
  // the wake-ups are part of the measured scatter: none where the spread is off (as the cost's spread)
  const wake: WakeCost = {};
  if (spread && !without.has('spin')) {
    if (!without.has('spin-isolated')) wake.spin_wake_us = measured.spin_wake_us;
    else if (host.spinWake) wake.spin_wake_us = host.spinWake;
  }
  if (spread && !without.has('wake') && measured.answer_wake_us !== undefined) wake.answer_wake_us = measured.answer_wake_us;
  if (without.has('idle')) delete cost.idle_penalty_us;
  if (without.has('held')) delete cost.held_table;
  // without interruptions: the calibration's spread as it was before they were split out of it is not kept,
  // so this leaves the batches that were interrupted out of the simulation altogether
  if (without.has('interruptions')) delete cost.interruptions;
  return simulate({
    scenario, configs: [configOf(c)], seed: 7, record,
    cost: { [c.model]: cost },
    cores: without.has('host') ? cal.host.cpus : host.cores,
    prefetch: without.has('prefetch') ? 0 : 1,
    hostModel: hostModel({
      mainThreadUsPerRequest: without.has('host') ? 0 : host.mainUsPerRequest,
      spinTakesCore: !without.has('spincore'),
      wake: { [c.model]: wake },
      ...(without.has('timers') ? {} : { timers: host.timer }),
      ...(without.has('stalls') || !host.stalls ? {} : { stalls: host.stalls }),
      ...(without.has('gc') || !host.gc ? {} : { gc: host.gc }),
    }),
  });
}
