/**
 * Teaching engine: core's simulator (createSimulation: the real ModelScheduler on a VirtualClock with the
 * cost-model executor and seeded arrivals from a core Scenario), run in the browser. Every SchedulerEvent
 * is kept in order so the page can single-step, play at any speed, and scrub back (by replaying the log
 * into a fresh LiveModel; the scheduler itself only moves forward). On top of the simulator this adds the
 * modelled memory ledger and its budget, so lesson 5 can show a refused instance.
 */
import { codeOf, type ControlAck, type ControlMessage, type SchedulerEvent, type Snapshot } from '@inferscope/core';
import { createSimulation, type Simulation } from '@inferscope/core/sim';
import type { Scenario } from '@inferscope/core/load';
import { normalizeModelConfig, type ModelConfig } from '@inferscope/core/config';
import type { SimModel, SimScenario } from './sim-types';
import { CALIBRATION_CORES } from './models';
import { S } from '../i18n/strings';

const DEVICE = 'cpu';

export function toCoreScenario(s: SimScenario): Scenario {
  return {
    name: 'lesson',
    seed: s.seed,
    models: s.models.map((m) => ({ value: m.name, weight: 1 })),
    priorities: s.traffic.priorities ? Object.entries(s.traffic.priorities).map(([level, w]) => ({ value: Number(level), weight: w })) : undefined,
    phases: [{ type: 'poisson', rate: s.traffic.rate, duration_s: s.traffic.durationUs / 1_000_000 }],
  };
}

export class TeachingEngine {
  readonly sim: Simulation;
  private instanceCounts = new Map<string, number>();
  private ready: Promise<void>;

  constructor(readonly scenario: SimScenario) {
    this.sim = createSimulation({
      scenario: toCoreScenario(scenario),
      configs: scenario.models.map((m) => ({ ...m.config, name: m.name })),
      cost: Object.fromEntries(scenario.models.map((m) => [m.name, m.cost])),
      cores: scenario.cores ?? CALIBRATION_CORES,
      seed: scenario.seed,
    });
    for (const m of scenario.models) this.instanceCounts.set(m.name, totalInstances(m));
    // Instances start through promises: let those settle before the first step.
    this.ready = new Promise<void>((r) => setTimeout(r, 0)).then(() => this.emitMemory());
  }

  get events(): SchedulerEvent[] {
    return this.sim.events;
  }

  whenReady(): Promise<void> {
    return this.ready;
  }

  now(): number {
    return this.sim.now();
  }

  advanceTo(tUs: number): void {
    if (tUs > this.sim.now()) this.sim.advanceTo(tUs);
  }

  /** Single step: run until at least one new scheduler event happened (or nothing is left). */
  step(): number {
    return this.sim.stepEvent().length;
  }

  snapshot(): Snapshot {
    return {
      server: { name: 'inferscope-sim', version: '1', extensions: [], model_control_mode: 'none', token_required: false, can_control: true, cpu_count: 2, gpu_count: 0 },
      repositories: [S.simulatedRepository],
      models: this.scenario.models.map((m) => ({
        name: m.name, version: '1', state: 'READY', repository: S.simulatedRepository, backend: m.backend, platform: m.platform,
        config: normalized(m),
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
      const s = 'model' in msg && msg.model ? this.sim.schedulers.get(msg.model) : undefined;
      if (!s) return { ok: false, error: S.simErrors.unknownModel('model' in msg ? msg.model ?? '' : ''), code: 'NOT_FOUND' };
      switch (msg.action) {
        case 'setDynamicBatching': {
          const { action: _a, model: _m, version: _v, ...patch } = msg;
          return { ok: true, changes: s.updateDynamicBatching(patch, 'teaching') };
        }
        case 'setInstanceCount': {
          const m = this.scenario.models.find((x) => x.name === msg.model)!;
          const next = this.memoryWith(m.name, msg.count);
          if (this.scenario.budgetBytes > 0 && next > this.scenario.budgetBytes) {
            const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
            return { ok: false, error: S.simErrors.budget(msg.count, m.name, mib(next), DEVICE, mib(this.scenario.budgetBytes)), code: 'UNAVAILABLE' };
          }
          await s.setInstanceCount(msg.group, msg.count, 'teaching');
          this.instanceCounts.set(m.name, msg.count);
          this.emitMemory();
          return { ok: true };
        }
        default:
          return { ok: false, error: S.simErrors.needsServer(msg.action), code: 'UNSUPPORTED' };
      }
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err), code: codeOf(err) };
    }
  }

  /** Modelled memory: Σ models (weights + instances × (workspace + activations × max batch)). */
  memoryWith(changed?: string, count?: number): number {
    let total = 0;
    for (const m of this.scenario.models) total += modelMemory(m, m.name === changed ? count ?? 0 : this.instanceCounts.get(m.name) ?? 0);
    return total;
  }

  private emitMemory(): void {
    const entries = this.scenario.models.flatMap((m) => {
      const n = this.instanceCounts.get(m.name) ?? 0;
      const mb = Math.max(1, Number(m.config.max_batch_size ?? 1));
      return Array.from({ length: n }, (_, i) => ({
        model: m.name, version: '1', instance: `${m.name}_0_${i}`, source: 'modelled' as const,
        bytes: m.memory.workspace + m.memory.activationsPerItem * mb + (i === 0 ? m.memory.weights : 0),
      }));
    });
    this.sim.bus.emit({ type: 'memory', t: this.sim.now(), device: DEVICE, used_bytes: this.memoryWith(), budget_bytes: this.scenario.budgetBytes, entries });
  }
}

export function totalInstances(m: SimModel): number {
  return (m.config.instance_group ?? [{ count: 1 }]).reduce((n, g) => n + (g.count ?? 1), 0);
}

export function modelMemory(m: SimModel, instances: number): number {
  const mb = Math.max(1, Number(m.config.max_batch_size ?? 1));
  return m.memory.weights + instances * (m.memory.workspace + m.memory.activationsPerItem * mb);
}

/** The config as the server would report it: normalised with Triton's defaults (falls back to the raw one). */
function normalized(m: SimModel): Record<string, unknown> {
  const raw = structuredClone({ name: m.name, platform: m.platform, ...m.config }) as unknown as ModelConfig;
  try {
    return normalizeModelConfig(raw, { modelName: m.name, gpuCount: 0 }) as unknown as Record<string, unknown>;
  } catch {
    return raw as unknown as Record<string, unknown>;
  }
}
