/**
 * Teaching engine: the core's real ModelScheduler on the core's VirtualClock, in the browser, with a
 * cost-model executor and seeded Poisson arrivals. Every SchedulerEvent is kept in order so the page can
 * single-step (one scheduler event at a time), play at any speed, and scrub back (by replaying the log
 * into a fresh LiveModel; the scheduler itself only moves forward).
 */
import { EventBus, type ControlAck, type ControlMessage, type SchedulerEvent, type Snapshot } from '@inferscope/core';
import { ModelScheduler, VirtualClock, type InstanceInfo, type SchedulerRequest } from '@inferscope/core/scheduler/index.ts';
import { mulberry32 } from './rng';
import type { SimModel, SimScenario } from './sim-types';

const DEVICE = 'cpu';

export class TeachingEngine {
  readonly clock = new VirtualClock(0);
  readonly bus = new EventBus();
  readonly events: SchedulerEvent[] = [];
  readonly schedulers = new Map<string, ModelScheduler>();
  private readonly rng: () => number;
  private ready: Promise<void>;
  private instanceCounts = new Map<string, number>();

  constructor(readonly scenario: SimScenario) {
    this.rng = mulberry32(scenario.seed);
    this.bus.on((e) => this.events.push(e));
    for (const m of scenario.models) {
      const s = new ModelScheduler({
        model: m.name, version: '1', config: m.config, clock: this.clock, bus: this.bus,
        executor: {
          execute: () => Promise.reject(new Error('the simulator runs batches through executeWithCallback')),
          // Synchronous callback form: the batch finishes on a virtual-clock timer, no promise involved.
          executeWithCallback: (_i: InstanceInfo, batch: readonly SchedulerRequest[], done) => {
            const samples = batch.reduce((n, r) => n + r.batchSize, 0);
            const jitter = 1 + (this.rng() - 0.5) * 0.1;
            const us = Math.max(1, Math.round((m.cost.fixedUs + m.cost.perItemUs * samples) * jitter));
            this.clock.setTimer(this.clock.now() + us, () => done(null, batch.map(() => null)));
          },
        },
      });
      this.schedulers.set(m.name, s);
      this.instanceCounts.set(m.name, totalInstances(m));
    }
    this.ready = Promise.all([...this.schedulers.values()].map((s) => s.start())).then(() => {
      this.emitMemory();
      for (const m of scenario.models) this.scheduleArrival(m, 0);
    });
  }

  /** Resolves once every instance has started (a few microtasks). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  now(): number {
    return this.clock.now();
  }

  /** Fire timers up to tUs (play). */
  advanceTo(tUs: number): void {
    if (tUs > this.clock.now()) this.clock.advanceTo(tUs);
  }

  /** Single step: run until at least one new scheduler event happened (or nothing is left). */
  step(): number {
    const before = this.events.length;
    while (this.events.length === before && this.clock.step()) {
      /* timers that emit nothing (e.g. a cancelled decision) are skipped */
    }
    return this.events.length - before;
  }

  snapshot(): Snapshot {
    return {
      server: { name: 'inferscope-sim', version: '1', extensions: [], model_control_mode: 'none', token_required: false, can_control: true, cpu_count: 2, gpu_count: 0 },
      repositories: ['model_repository (simulated)'],
      models: this.scenario.models.map((m) => ({
        name: m.name, version: '1', state: 'READY', repository: 'model_repository (simulated)', backend: m.backend, platform: m.platform,
        config: structuredClone({ ...m.config, name: m.name, backend: m.backend, platform: m.platform }) as Record<string, unknown>,
        instances: [], files: m.files, queue_depth: {},
      })),
      memory: [],
      stats: null,
      t: 0,
      wall_ms: Date.now(),
    };
  }

  /** Control messages in teaching mode act on the simulated schedulers, with the same checks as the server. */
  async control(msg: ControlMessage): Promise<ControlAck> {
    try {
      const s = 'model' in msg && msg.model ? this.schedulers.get(msg.model) : undefined;
      if (!s) return { ok: false, error: `unknown model '${'model' in msg ? msg.model : ''}'` };
      switch (msg.action) {
        case 'setDynamicBatching': {
          const { action: _a, model: _m, version: _v, ...patch } = msg;
          return { ok: true, changes: s.updateDynamicBatching(patch, 'teaching') };
        }
        case 'setInstanceCount': {
          const m = this.scenario.models.find((x) => x.name === msg.model)!;
          const next = this.memoryWith(m.name, msg.count);
          if (this.scenario.budgetBytes > 0 && next > this.scenario.budgetBytes) {
            return { ok: false, error: `refused: ${msg.count} instances of ${m.name} need ${(next / 2 ** 20).toFixed(0)} MiB, over the ${(this.scenario.budgetBytes / 2 ** 20).toFixed(0)} MiB memory budget of ${DEVICE}` };
          }
          await s.setInstanceCount(msg.group, msg.count, 'teaching');
          this.instanceCounts.set(m.name, msg.count);
          this.emitMemory();
          return { ok: true };
        }
        default:
          return { ok: false, error: `'${msg.action}' needs the live server (not available in teaching mode)` };
      }
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  private scheduleArrival(m: SimModel, fromUs: number): void {
    const rate = this.scenario.traffic.rate;
    if (rate <= 0) return;
    const gapUs = (-Math.log(1 - this.rng()) / rate) * 1_000_000;
    const at = fromUs + gapUs;
    if (at > this.scenario.traffic.durationUs) return;
    this.clock.setTimer(at, () => {
      const s = this.schedulers.get(m.name)!;
      s.submit({ batchSize: 1, shapeKey: '', priority: this.pickPriority(), payload: null }, () => {});
      this.scheduleArrival(m, at);
    });
  }

  private pickPriority(): number | undefined {
    const mix = this.scenario.traffic.priorities;
    if (!mix) return undefined;
    let u = this.rng();
    for (const [level, share] of Object.entries(mix)) {
      u -= share;
      if (u <= 0) return Number(level);
    }
    return Number(Object.keys(mix).at(-1));
  }

  /** Modelled memory: Σ models (weights + instances × (workspace + activations × max batch)). */
  memoryWith(changed?: string, count?: number): number {
    let total = 0;
    for (const m of this.scenario.models) {
      const n = m.name === changed ? count ?? 0 : this.instanceCounts.get(m.name) ?? 0;
      total += modelMemory(m, n);
    }
    return total;
  }

  private emitMemory(): void {
    const entries = this.scenario.models.flatMap((m) => {
      const n = this.instanceCounts.get(m.name) ?? 0;
      return Array.from({ length: n }, (_, i) => ({
        model: m.name, version: '1', instance: `${m.name}_0_${i}`, source: 'modelled' as const,
        bytes: m.memory.workspace + m.memory.activationsPerItem * Math.max(1, Number(m.config.max_batch_size ?? 1)) + (i === 0 ? m.memory.weights : 0),
      }));
    });
    this.bus.emit({ type: 'memory', t: this.clock.now(), device: DEVICE, used_bytes: this.memoryWith(), budget_bytes: this.scenario.budgetBytes, entries });
  }
}

export function totalInstances(m: SimModel): number {
  return (m.config.instance_group ?? [{ count: 1 }]).reduce((n, g) => n + (g.count ?? 1), 0);
}

export function modelMemory(m: SimModel, instances: number): number {
  const mb = Math.max(1, Number(m.config.max_batch_size ?? 1));
  return m.memory.weights + instances * (m.memory.workspace + m.memory.activationsPerItem * mb);
}
