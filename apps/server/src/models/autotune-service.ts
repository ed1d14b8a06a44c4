/**
 * The server's autotuner: for every READY model version whose config declares `autotune_p99_ms` (or that
 * the control channel switched on), core's autotune policy runs once a second on that second's statistics
 * and its patch goes through the manager's live reconfiguration (which loses nothing). Each change is a
 * config.changed event by 'autotune' carrying the decision's reason, so the live stream shows it like a
 * manual change. Its status (met, not met with the best p99 and what limits it, holding, restored) is core's
 * (autotune/status.ts), reported as is. Switching off restores the delay it found and removes the
 * instances it added (core's autotuneRestore), and the status says what it restored.
 */
import type { DynamicBatchingPatch, EventBus } from '@inferscope/core';
import type { AutotuneChangeReason } from '@inferscope/core';
import {
  AUTOTUNE_WINDOW_US, autotuneReport, autotuneRestore, autotuneStart, autotuneStep, autotuneTargetOfMs, autotuneTargetUs, batchingView, tunedGroupCount, autotuneWarnings, initialAutotuneState, ObservedCost, WindowCollector,
  type AutotuneReport, type AutotuneState, type AutotuneStep, type BatchCost,
} from '@inferscope/core/autotune';

import { bundledCalibration, costFromCalibration, costOf } from '@inferscope/core/sim';
import type { ModelConfig } from '@inferscope/core/config';

/** what the model's snapshot, the statistics and the control acknowledgement say about its tuner (core's) */
export type AutotuneStatus = AutotuneReport;

export interface AutotuneHost {
  bus: EventBus;
  now(): number;
  log(msg: string): void;
  /** the live config of a loaded version, undefined when it is not READY */
  config(model: string, version: string): ModelConfig | undefined;
  /** a change by 'autotune': with the decision's reason, or none for a restore (it is no tuning decision) */
  apply(model: string, version: string, patch: DynamicBatchingPatch, reason?: AutotuneChangeReason): Promise<unknown>;
  /** sets the first instance group's count (the tuner adds an instance when no delay can hold the target) */
  setInstances?(model: string, version: string, count: number, reason?: AutotuneChangeReason): Promise<unknown>;
  /** the host's cores: the most instances the tuner may run; absent: it never changes the count */
  cores?: number;
  windowMs?: number;
}

interface Tuner {
  model: string;
  version: string;
  enabled: boolean;
  /** the last decision's reason, if any */
  last?: AutotuneChangeReason;
  state: AutotuneState;
  collector: WindowCollector;
  observed: ObservedCost;
  calibrated?: BatchCost;
  busy: boolean;
  /** the change being applied, awaited by a restore */
  pending?: Promise<void>;
}

const key = (model: string, version: string) => `${model}\u0000${version}`;

export class AutotuneService {
  private readonly tuners = new Map<string, Tuner>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly off: () => void;

  constructor(private readonly host: AutotuneHost) {
    this.off = host.bus.on((e) => {
      if (e.type === 'model.state') {
        if (e.state === 'READY') this.onReady(e.model, e.version);
        else this.tuners.delete(key(e.model, e.version));
        return;
      }
      if (!('model' in e) || this.tuners.size === 0) return;
      this.tuners.get(key(e.model, e.version))?.collector.add(e);
    });
  }

  /** The tuner of a version, for its snapshot; undefined when none runs or ran. */
  status(model: string, version: string): AutotuneStatus | undefined {
    const t = this.tuners.get(key(model, version));
    return t ? autotuneReport(t.enabled, t.state.status, t.last) : undefined;
  }

  /** Every version's report, for the statistics stream (a status changes without a config change). */
  reports(): ({ model: string; version: string } & AutotuneStatus)[] {
    return [...this.tuners.values()].map((t) => ({ model: t.model, version: t.version, ...autotuneReport(t.enabled, t.state.status, t.last) }));
  }

  /**
   * The control channel's switch: on (with a target, or the one it had / the config declares) or off.
   * Off restores what the tuner found (its delay, and the preferred sizes and instances it changed) and
   * answers with what it restored; on again starts afresh from the configuration then.
   */
  async set(model: string, version: string, enabled: boolean, targetMs?: number): Promise<AutotuneStatus> {
    const config = this.host.config(model, version);
    if (!config) throw new Error(`model '${model}' version ${version} is not ready`);
    if ((config.max_batch_size ?? 0) === 0) throw new Error(`model '${model}' has max_batch_size 0: there is no batching to tune`);
    const existing = this.tuners.get(key(model, version));
    const targetUs = targetMs !== undefined ? autotuneTargetOfMs(targetMs, 'target_ms') : existing?.state.target_us ?? autotuneTargetUs(config);
    if (enabled && targetUs === undefined) throw new Error(`model '${model}' has no p99 target: give target_ms (or declare parameter autotune_p99_ms)`);
    if (!enabled) {
      if (!existing) return autotuneReport(false, { state: 'off', target_us: targetUs ?? 0 });
      if (existing.enabled) await this.restore(existing, config);
      return this.status(model, version)!;
    }
    if (!existing || !existing.enabled) return this.status(this.begin(model, version, config, targetUs!).model, version)!;
    // a new target: the out-of-reach verdict and the ceilings were the old target's (the policy checks it)
    existing.state = { ...existing.state, target_us: targetUs!, status: { ...existing.state.status, target_us: targetUs! } };
    this.arm();
    return this.status(model, version)!;
  }

  /** Puts back what the tuner changed; it stops first, so no window's decision races the restore. */
  private async restore(t: Tuner, config: ModelConfig): Promise<void> {
    t.enabled = false;
    const r = autotuneRestore(t.state, batchingView(config, this.cores()));
    t.state = { ...t.state, status: r.status };
    await t.pending;
    try {
      if (r.patch) await this.host.apply(t.model, t.version, r.patch);
      if (r.remove_instances > 0 && this.host.setInstances) await this.host.setInstances(t.model, t.version, tunedGroupCount(config, -r.remove_instances));
    } catch (err) {
      const why = `could not restore: ${(err as Error).message}`;
      this.host.log(`${t.model}: autotune ${why}`);
      throw new Error(`autotune switched off but ${why}`);
    }
    if (r.status.state === 'restored') this.host.log(`${t.model}:${t.version} autotune off: ${r.status.text}`);
  }

  close(): void {
    this.off();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.tuners.clear();
  }

  private onReady(model: string, version: string): void {
    const config = this.host.config(model, version);
    if (!config) return;
    let targetUs: number | undefined;
    try {
      targetUs = autotuneTargetUs(config);
    } catch {
      return; // validation refused the config before it could be READY
    }
    if (targetUs === undefined || (config.max_batch_size ?? 0) === 0) return;
    this.begin(model, version, config, targetUs);
  }

  private begin(model: string, version: string, config: ModelConfig, targetUs: number): Tuner {
    const kind = config.instance_group?.[0]?.kind ?? 'KIND_CPU';
    const cal = bundledCalibration(model, config.backend || undefined, kind);
    for (const w of autotuneWarnings({ ...config, parameters: { autotune_p99_ms: { string_value: String(targetUs / 1000) } } }, cal?.table_us['1'])) this.host.log(`${model}: ${w}`);
    const t: Tuner = {
      model, version,
      enabled: true,
      state: initialAutotuneState(targetUs),
      collector: new WindowCollector(model, this.host.now(), targetUs, version),
      observed: new ObservedCost(),
      calibrated: cal ? costOf(costFromCalibration(cal)) : undefined,
      busy: false,
    };
    this.tuners.set(key(model, version), t);
    this.host.log(`${model}:${version} autotuned to p99 ${targetUs / 1000} ms${cal ? '' : ' (no calibration: from the measured batch times)'}`);
    this.run(t, autotuneStart(t.state, batchingView(config, this.cores())));
    this.arm();
    return t;
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.host.windowMs ?? AUTOTUNE_WINDOW_US / 1000);
    this.timer.unref?.();
  }

  private tick(): void {
    const now = this.host.now();
    let active = 0;
    for (const t of this.tuners.values()) {
      t.collector.targetUs = t.state.target_us;
      const w = t.collector.take(now);
      t.observed.add(w);
      if (!t.enabled) continue;
      active++; // a tuner whose last change is still being applied keeps the timer running
      if (t.busy) continue;
      const config = this.host.config(t.model, t.version);
      // the calibration's shape at this host's measured level (the server is seldom the calibration's host)
      const cost = t.calibrated ? t.observed.scaled(t.calibrated) : t.observed.cost();
      if (!config || !cost) continue;
      this.run(t, autotuneStep(t.state, w, batchingView(config, this.cores()), cost), config);
    }
    if (active === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** the cores bound only where the host can change the count */
  private cores(): number | undefined {
    return this.host.setInstances ? this.host.cores : undefined;
  }

  private run(t: Tuner, step: AutotuneStep, config?: ModelConfig): void {
    t.state = step.state;
    if (!step.decision || (!step.patch && !step.instances_delta)) return;
    const reason = step.decision.reason;
    const patch = step.patch;
    const count = step.instances_delta && config ? tunedGroupCount(config, step.instances_delta) : undefined;
    t.busy = true;
    // the delay first (it suits the new count as well as the old), then the count
    t.pending = Promise.resolve(patch ? this.host.apply(t.model, t.version, patch, reason) : undefined)
      .then(() => (count !== undefined && this.host.setInstances ? this.host.setInstances(t.model, t.version, count, reason) : undefined))
      .then(
      () => { t.last = reason; },
      (err) => this.host.log(`${t.model}: autotune change refused: ${(err as Error).message}`),
    ).finally(() => { t.busy = false; });
  }
}
