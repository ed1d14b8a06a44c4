/**
 * Teaching engine: core's simulator (createSimulation: the real ModelScheduler on a VirtualClock with the
 * cost-model executor and seeded arrivals from a core Scenario), run in the browser. Every SchedulerEvent
 * is kept in order so the page can single-step, play at any speed, and scrub back (by replaying the log
 * into a fresh LiveModel; the scheduler itself only moves forward). On top of the simulator this adds the
 * modelled memory ledger and its budget, so lesson 5 can show a refused instance.
 */
import { errors, InferError, type ControlAck, type ControlMessage, type ModelSnapshot, type SchedulerEvent, type Snapshot } from '@inferscope/core';
import { createSimulation, type Simulation } from '@inferscope/core/sim';
import type { Scenario } from '@inferscope/core/load';
import { configProblems, normalizeModelConfig, type ModelConfig } from '@inferscope/core/config';
import { controlRefusal, validateControlMessage } from '@inferscope/core/live';
import { planBatchingChange, planInstanceCount } from '@inferscope/core/scheduler';
import { planIterativeChange } from '@inferscope/core/iterative';
import { SIM_VERSION, type SimModel, type SimScenario } from './sim-types';
import { CALIBRATION_CORES } from './models';
import { TeachingGenerator } from './gen-serve';
import { S } from '../i18n/strings';

const DEVICE = 'cpu';
/** the one version a simulated model serves */

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
  /** each model's live config, as the server keeps it: normalised, with the live changes applied */
  private readonly configs = new Map<string, ModelConfig>();
  /** max_batch_size as loaded: a live change may lower it, not raise it past this (as on the server) */
  private readonly loadedMaxBatch = new Map<string, number>();
  private ready: Promise<void>;
  /** tiny_lm_generate, served with core's step loop on the simulation's clock (the generative lessons) */
  readonly gen: TeachingGenerator | null;

  constructor(readonly scenario: SimScenario) {
    this.sim = createSimulation({
      scenario: toCoreScenario(scenario),
      configs: scenario.models.map((m) => ({ ...m.config, name: m.name })),
      cost: Object.fromEntries(scenario.models.map((m) => [m.name, m.cost])),
      cores: scenario.cores ?? CALIBRATION_CORES,
      seed: scenario.seed,
    });
    for (const m of scenario.models) {
      this.instanceCounts.set(m.name, totalInstances(m.config));
      const config = normalized(m);
      this.configs.set(m.name, config);
      this.loadedMaxBatch.set(m.name, config.max_batch_size ?? 0);
    }
    this.gen = scenario.generative ? new TeachingGenerator(this.sim.clock, this.sim.bus, scenario.generative, scenario.seed) : null;
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
      models: this.scenario.models.map((m): ModelSnapshot => ({
        name: m.name, version: SIM_VERSION, state: 'READY', repository: S.simulatedRepository, backend: m.backend, platform: m.platform,
        config: this.configs.get(m.name) as unknown as Record<string, unknown>,
        instances: [], files: m.files, queue_depth: {},
      })).concat(this.gen ? [{
        name: this.gen.model, version: SIM_VERSION, state: 'READY' as const, repository: S.simulatedRepository, backend: 'onnxruntime', platform: '',
        config: this.gen.config as unknown as Record<string, unknown>, instances: [], files: [], queue_depth: {},
      }] : []),
      memory: [],
      stats: null,
      t: 0,
      wall_ms: Date.now(),
    };
  }

  /**
   * A control message in teaching mode, checked and planned by the pieces the server's control path uses:
   * core's validator (validateControlMessage: nesting, size, the action's schema and LIVE_LIMITS), the
   * model and version lookup in Triton's words, core's live-change planner over the whole config
   * (planBatchingChange / planInstanceCount) with the config file's rules (configProblems), and the same
   * acknowledgement (the change list). So a message the server refuses is refused here, in its words.
   * Accepts what arrives on the wire (unknown), as the gateway does.
   */
  async control(raw: unknown): Promise<ControlAck> {
    const v = validateControlMessage(raw);
    if (!v.ok) return controlRefusal(errors.INVALID(v.error));
    try {
      return await this.apply(v.value);
    } catch (err) {
      return controlRefusal(err);
    }
  }

  private async apply(msg: ControlMessage): Promise<ControlAck> {
    if (this.gen && 'model' in msg && msg.model === this.gen.model) return this.applyToGen(this.genOf('version' in msg ? msg.version : undefined), msg);
    if (msg.action === 'setIterativeKnobs') {
      // planned by the server's planner: this model is not iterative, refused in its words
      const { action: _a, model: _m, version: _v, ...patch } = msg;
      const next = planIterativeChange(msg.model, this.modelOf(msg.model, msg.version).config, patch);
      if (next.changes.length === 0) return { ok: true, changes: next.changes };
      return controlRefusal(new InferError('UNSUPPORTED', S.simErrors.needsServer(msg.action)));
    }
    if (msg.action !== 'setDynamicBatching' && msg.action !== 'setInstanceCount') {
      return controlRefusal(new InferError('UNSUPPORTED', S.simErrors.needsServer(msg.action)));
    }
    const { model, config, scheduler } = this.modelOf(msg.model, msg.version);
    const check = (next: ModelConfig) => this.check(model.name, next);
    if (msg.action === 'setDynamicBatching') {
      const { action: _a, model: _m, version: _v, ...patch } = msg;
      const next = planBatchingChange(model.name, config, patch, this.loadedMaxBatch.get(model.name) ?? 0, check);
      if (next.changes.length > 0) {
        scheduler.applyLiveChange(next, 'teaching');
        this.configs.set(model.name, next.config);
      }
      return { ok: true, changes: next.changes };
    }
    const next = planInstanceCount(model.name, config, msg.group, msg.count);
    check(next.config);
    if (next.changes.length === 0) return { ok: true, changes: next.changes };
    const total = totalInstances(next.config);
    const bytes = this.memoryWith(model.name, total);
    if (next.delta > 0 && this.scenario.budgetBytes > 0 && bytes > this.scenario.budgetBytes) {
      const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
      return controlRefusal(new InferError('UNAVAILABLE', S.simErrors.budget(total, model.name, mib(bytes), DEVICE, mib(this.scenario.budgetBytes))));
    }
    await scheduler.setInstanceCount(next.group, msg.count, 'teaching');
    this.configs.set(model.name, next.config);
    this.instanceCounts.set(model.name, total);
    this.emitMemory();
    return { ok: true, changes: next.changes };
  }

  /**
   * A control message for the generative model, as the server's live edits take it: its knobs planned by
   * core's planIterativeChange, checked as a config file, applied at the step loop's next boundary
   * (gen-serve.ts); the request-level controls planned alike and refused where the server's planner or
   * its iterative scheduler refuses them.
   */
  private async applyToGen(gen: TeachingGenerator, msg: ControlMessage): Promise<ControlAck> {
    const check = (next: ModelConfig) => this.check(gen.model, next);
    if (msg.action === 'setIterativeKnobs') {
      const { action: _a, model: _m, version: _v, ...patch } = msg;
      const next = planIterativeChange(gen.model, gen.config, patch);
      if (next.changes.length === 0) return { ok: true, changes: next.changes };
      check(next.config);
      await gen.apply(next, 'teaching');
      return { ok: true, changes: next.changes };
    }
    if (msg.action === 'setDynamicBatching') {
      const { action: _a, model: _m, version: _v, ...patch } = msg;
      const next = planBatchingChange(gen.model, gen.config, patch, gen.config.max_batch_size ?? 0, check);
      if (next.changes.length === 0) return { ok: true, changes: next.changes };
    } else if (msg.action === 'setInstanceCount') {
      const next = planInstanceCount(gen.model, gen.config, msg.group, msg.count);
      check(next.config);
      if (next.changes.length === 0) return { ok: true, changes: next.changes };
      gen.setInstanceCount();
    }
    return controlRefusal(new InferError('UNSUPPORTED', S.simErrors.needsServer(msg.action)));
  }

  /** A changed config checked as a config file, as the server's live edits check it. */
  private check(name: string, next: ModelConfig): void {
    const problems = configProblems(next, { folderName: name, gpuCount: 0 });
    if (problems.length > 0) throw errors.INVALID(problems[0].message);
  }

  /** The generative model, at the version a message names (the simulator serves version 1). */
  private genOf(version: string | undefined): TeachingGenerator {
    checkVersion(this.gen!.model, version);
    return this.gen!;
  }

  /** The model a message names, found as the server finds it (Triton's words); the simulator serves version 1. */
  private modelOf(name: string, version: string | undefined) {
    const model = this.scenario.models.find((m) => m.name === name);
    const scheduler = this.sim.schedulers.get(name);
    const config = this.configs.get(name);
    if (!model || !scheduler || !config) throw errors.UNKNOWN_MODEL(name);
    checkVersion(name, version);
    return { model, scheduler, config };
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

export function totalInstances(config: Pick<ModelConfig, 'instance_group'> | SimModel['config']): number {
  return (config.instance_group ?? [{ count: 1 }]).reduce((n, g) => n + (g.count ?? 1), 0);
}

export function modelMemory(m: SimModel, instances: number): number {
  const mb = Math.max(1, Number(m.config.max_batch_size ?? 1));
  return m.memory.weights + instances * (m.memory.workspace + m.memory.activationsPerItem * mb);
}

/** The config as the server would report it: normalised with Triton's defaults (falls back to the raw one). */
function normalized(m: SimModel): ModelConfig {
  const raw = structuredClone({ name: m.name, platform: m.platform, ...m.config }) as unknown as ModelConfig;
  try {
    return normalizeModelConfig(raw, { modelName: m.name, gpuCount: 0 });
  } catch {
    return raw;
  }
}

/** A version a message names, checked as the server checks it (the simulator serves SIM_VERSION only). */
function checkVersion(model: string, version: string | undefined): void {
  if (version !== undefined && version !== SIM_VERSION) throw errors.UNKNOWN_VERSION(model, version);
}
