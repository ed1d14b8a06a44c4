/**
 * Runs the autotune policy on one ModelScheduler: every window it closes the statistics, takes the policy's
 * step and applies its patch through the scheduler's live change (nothing queued is lost), the change
 * carrying the decision's reason as its config.changed event. The simulator drives it on its virtual
 * clock; the server owns its own loop (it changes configs through the model manager) but runs the same
 * policy on the same window statistics.
 */
import type { Clock } from '../clock/clock';
import type { EventBus } from '../events';
import type { ModelScheduler } from '../scheduler/model-scheduler';
import { policyFromConfig } from '../scheduler/policy';
import { autotuneStart, autotuneStep, initialAutotuneState, type AutotuneStep, type AutotuneDecision, type AutotuneState, type BatchingView } from './policy';
import { autotuneRestore } from './restore';
import type { AutotuneStatus } from './status';
import type { BatchCost } from './queue-model';
import { WindowCollector } from './window';
import { ObservedCost } from './cost';
import type { SchedulerConfigInput } from '../scheduler/config-input';
import { LIVE_LIMITS } from '../live-config/limits';

export const AUTOTUNE_WINDOW_US = 1_000_000;

/**
 * The view of batching the policy reads, from a scheduler's config slice. `cores`: the host's, which bound
 * the instances the tuner may run; only a model with one CPU instance group gets them (a GPU group's count
 * is per device, several groups are the user's layout).
 */
export function batchingView(config: SchedulerConfigInput, cores?: number): BatchingView {
  const policy = policyFromConfig(config);
  const groups = config.instance_group ?? [];
  const instances = groups.reduce((n, g) => n + Math.max(0, (g.count ?? 1) * Math.max(1, g.gpus?.length ?? 1)), 0) || 1;
  const cpuOnly = groups.length <= 1 && groups.every((g) => (g.kind ?? 'KIND_CPU') === 'KIND_CPU' && (g.gpus?.length ?? 0) === 0);
  const max_instances = cores !== undefined && cpuOnly ? Math.min(LIVE_LIMITS.instance_count.max, Math.max(1, Math.floor(cores))) : undefined;
  return { delay_us: policy.maxQueueDelayUs, preferred: policy.preferred, max_batch_size: config.max_batch_size ?? 0, instances, ...(max_instances ? { max_instances } : {}) };
}

/** The first instance group's count after the tuner's change (the group it tunes). */
export function tunedGroupCount(config: SchedulerConfigInput, delta: number): number {
  return Math.max(1, (config.instance_group?.[0]?.count ?? 1) + delta);
}

export interface AutotuneDriverOptions {
  clock: Clock;
  bus: EventBus;
  scheduler: ModelScheduler<unknown, unknown>;
  target_us: number;
  /** the calibrated cost; absent: the measured cost of the batches run so far */
  cost?: BatchCost;
  window_us?: number;
  /** stop ticking after this time (the simulation's end), µs */
  until_us?: number;
  /** the host's cores: the tuner may run up to this many instances (absent: it never changes the count) */
  cores?: number;
}

export interface DecisionRecord extends AutotuneDecision {
  t_us: number;
  /** an instance added (+1) or taken back (-1) */
  instances_delta?: 1 | -1;
}

export class AutotuneDriver {
  readonly decisions: DecisionRecord[] = [];
  private state: AutotuneState;
  private readonly collector: WindowCollector;
  private readonly observed = new ObservedCost();
  private off: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly o: AutotuneDriverOptions) {
    this.state = initialAutotuneState(o.target_us);
    this.collector = new WindowCollector(o.scheduler.model, o.clock.now(), o.target_us);
    this.off = o.bus.on((e) => this.collector.add(e));
    this.apply(autotuneStart(this.state, batchingView(o.scheduler.currentConfig, o.cores)));
    this.arm();
  }

  /** what the user is told now (status.ts) */
  get status(): AutotuneStatus {
    return this.state.status;
  }

  /** Switched off: puts back the delay it found and takes back the instances it added (restore.ts). */
  stop(): AutotuneStatus {
    if (this.stopped) return this.state.status;
    this.stopped = true;
    this.off?.();
    this.off = undefined;
    const r = autotuneRestore(this.state, batchingView(this.o.scheduler.currentConfig, this.o.cores));
    // no reason: a restore is not a tuning decision (the dashboard reads a reason as "the tuner is on")
    if (r.patch) this.o.scheduler.updateDynamicBatching(r.patch, 'autotune', undefined);
    if (r.remove_instances > 0) {
      const count = tunedGroupCount(this.o.scheduler.currentConfig, -r.remove_instances);
      void this.o.scheduler.setInstanceCount(undefined, count, 'autotune').catch(() => undefined);
    }
    this.state = { ...this.state, status: r.status };
    return r.status;
  }

  private apply(step: AutotuneStep): void {
    this.state = step.state;
    if (step.patch && step.decision) {
      this.o.scheduler.updateDynamicBatching(step.patch, 'autotune', step.decision.reason);
    }
    if (step.instances_delta && step.decision) {
      const count = tunedGroupCount(this.o.scheduler.currentConfig, step.instances_delta);
      void this.o.scheduler.setInstanceCount(undefined, count, 'autotune', step.decision.reason).catch(() => undefined);
    }
    if (step.decision && (step.patch || step.instances_delta)) this.decisions.push({ t_us: this.o.clock.now(), ...step.decision, ...(step.instances_delta ? { instances_delta: step.instances_delta } : {}) });
  }

  private arm(): void {
    const at = this.o.clock.now() + (this.o.window_us ?? AUTOTUNE_WINDOW_US);
    if (this.stopped) return;
    if (this.o.until_us !== undefined && at > this.o.until_us) {
      this.off?.();
      this.off = undefined;
      return;
    }
    this.o.clock.setTimer(at, () => this.tick());
  }

  private tick(): void {
    if (this.stopped) return;
    const now = this.o.clock.now();
    const w = this.collector.take(now);
    this.observed.add(w);
    const cost = this.o.cost ?? this.observed.cost();
    if (cost) this.apply(autotuneStep(this.state, w, batchingView(this.o.scheduler.currentConfig, this.o.cores), cost));
    this.arm();
  }
}
