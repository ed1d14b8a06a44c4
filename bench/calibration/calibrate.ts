/**
 * The fidelity bench's calibration: the product's table (the server's calibrateModel, what `inferscope
 * calibrate` writes) plus the host's own figures the simulator's host model needs (bench/sim-host): timer
 * lateness, main-thread stalls, effective cores, and, measured while the model is loaded, the spin and
 * answer wake-ups and what two instances get from the cores; optionally the server's main-thread work per
 * request and its collections.
 *
 *   npx tsx bench/calibration/calibrate.ts [--model NAME] [--out DIR]   (default: every bundled model,
 *   bench/calibrations/<model>.host.json)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Calibration, StallProfile } from '@inferscope/core/sim';
import { buildApp } from '../../apps/server/src/app';
import { calibrateModel, type CalibrateOptions } from '../../apps/server/src/calibration/calibrate-model';
import { measureAnswerWake, measureParallelCores, measureSpinWake } from './host-measures';
import { measureMainThread, type MainThreadCost } from './main-thread-probe';
import { measureTimerProfile } from './timer-probe';
import { measureEffectiveCores } from './cores-probe';
import { measureStallProfile } from './stall-probe';
import { validateHostCalibration, type HostCalibration, type TimerProfile } from '../sim-host/schemas';
import { arg } from '../args';

export const HOST_CALIBRATIONS = fileURLToPath(new URL('../calibrations/', import.meta.url));

/** The shipped host figures of a bundled model (bench/calibrations), or undefined. */
export function shippedHost(model: string): HostCalibration | undefined {
  try {
    return validateHostCalibration(JSON.parse(readFileSync(join(HOST_CALIBRATIONS, `${model}.host.json`), 'utf8')), `${model}.host.json`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export interface HostOptions extends CalibrateOptions {
  timer: TimerProfile;
  stalls?: StallProfile;
  effectiveCores?: number;
  /** also measure what two instances of the model get from the cores (default false) */
  parallel?: boolean;
  /** also measure the server's main-thread work per request and its collections (default true) */
  mainThread?: boolean;
}

/** A model's product calibration and the host figures measured beside it. */
export async function calibrateWithHost(repo: string, name: string, o: HostOptions): Promise<{ cal: Calibration; host: HostCalibration }> {
  const wake: Partial<HostCalibration> = {};
  const cal = await calibrateModel(repo, name, {
    ...o,
    whileLoaded: async ({ executor, info, config }) => {
      wake.spin_wake_us = await measureSpinWake(executor, info, config, o.seqLen);
      o.log?.(`  ${name} after idle with the main thread spinning, extra µs: p50 ${wake.spin_wake_us['0.5']}, p95 ${wake.spin_wake_us['0.95']}, p99 ${wake.spin_wake_us['0.99']}`);
      wake.answer_wake_us = await measureAnswerWake(executor, info, config, o.seqLen);
      o.log?.(`  ${name} answers seen ${wake.answer_wake_us} µs later with the main thread asleep than turning its loop (batch 1, back to back)`);
      if (o.parallel) {
        // a second instance beside the first: what two of this model really get from the host's cores
        const second = { ...info, name: `${name}_0_1`, index: 1 };
        await executor.startInstance?.(second);
        const sizes = o.sizes ?? [1, 2, 4, 8, 12, 16, 24, 32, 48, 64];
        const mid = sizes[Math.floor(sizes.length / 2)];
        wake.parallel_cores = await measureParallelCores(executor, [info, second], config, o.seqLen, mid, o.minMs);
        o.log?.(`  ${name} two instances at batch ${mid}: ${wake.parallel_cores} instances' worth`);
      }
    },
  });
  const main = o.mainThread === false ? undefined : await mainThreadCost(repo, name);
  const host: HostCalibration = {
    format: 'inferscope-host-calibration', model: cal.model, backend: cal.backend, measured_at: cal.measured_at,
    ...(o.effectiveCores !== undefined ? { effective_cores: o.effectiveCores } : {}),
    ...(wake.parallel_cores !== undefined ? { parallel_cores: wake.parallel_cores } : {}),
    ...(main ? { main_thread_us_per_request: main.us_per_request } : {}),
    ...(main?.gc ? { gc: main.gc } : {}),
    spin_wake_us: wake.spin_wake_us,
    answer_wake_us: wake.answer_wake_us,
    timer: o.timer,
    ...(o.stalls ? { stalls: o.stalls } : {}),
  };
  return { cal, host: validateHostCalibration(host) };
}

/** The model alone in an in-process server, driven by the load generator's in-process target. */
async function mainThreadCost(repo: string, name: string): Promise<MainThreadCost> {
  const server = await buildApp({ modelRepositories: [repo], modelControlMode: 'explicit', loadModels: [name], httpPort: 0, metricsPort: null, host: '127.0.0.1', live: false });
  try {
    return await measureMainThread(server.manager, name);
  } finally {
    await server.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const repo = arg('--model-repository', 'model_repository');
  const out = arg('--out', HOST_CALIBRATIONS);
  const only = arg('--model', '');
  const models = only ? [only] : ['mlp_classifier', 'cnn_classifier', 'text_encoder', 'mlp_classifier_torch'];
  mkdirSync(out, { recursive: true });
  const timer = await measureTimerProfile();
  const effectiveCores = await measureEffectiveCores();
  const stalls = await measureStallProfile();
  console.error(`  cores: ${effectiveCores} effective; main-thread stalls: ${stalls.rate_per_s}/s, p50 ${stalls.duration_us['0.5']} µs; timers: coarse wake-up ${timer.coarse_late_us['0.5']} µs late (p50), turn-checked ${timer.fine_late_us['0.5']} µs`);
  for (const name of models) {
    const { host } = await calibrateWithHost(repo, name, { seqLen: 16, minMs: 300, rounds: 1, timer, stalls, effectiveCores, parallel: true, log: (l) => console.error(l) });
    const file = join(out, `${name}.host.json`);
    writeFileSync(file, JSON.stringify(host, null, 2) + '\n');
    console.log(file);
  }
}
