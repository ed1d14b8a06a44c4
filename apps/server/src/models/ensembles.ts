/**
 * Ensemble model versions as the ModelManager serves them. An ensemble has no backend: loading one puts
 * an EnsembleScheduler in its slot, and its state follows its composing models (Triton loads an ensemble
 * only after the models it runs): READY while every composing model is READY and the steps fit their
 * configs (validateEnsembleSteps), UNAVAILABLE with the reason otherwise. It stays registered while it
 * waits, so it comes up by itself when a missing composing model loads, and goes UNAVAILABLE when one is
 * unloaded, whatever the order the repository is loaded in.
 */
import type { EventBus, InferPayload, InferResult, ModelState, SchedulerRequest } from '@inferscope/core';
import { validateEnsembleSteps } from '@inferscope/core/config';
import type { ModelConfig } from '@inferscope/core/config';
import type { ServedModel, VersionSlot } from './types';
import { EnsembleScheduler } from '../ensemble/ensemble-scheduler';
import { composingModels, cycleMessage, ensembleCycle } from '../ensemble/plan';

/** What the ensembles need from the ModelManager. */
export interface EnsembleManagerView {
  readonly options: { bus: EventBus };
  readonly now: () => number;
  /** a model version in any state (version undefined = the highest READY, else the newest) */
  get(name: string, version?: string): ServedModel | undefined;
  /** the READY version a request addresses, or throws with Triton's message */
  require(name: string, version?: string): ServedModel;
  infer(name: string, version: string, req: SchedulerRequest<InferPayload>): Promise<InferResult>;
  setState(model: string, slot: VersionSlot, state: ModelState, reason?: string): void;
}

interface LiveEnsemble {
  name: string;
  slot: VersionSlot;
  config: ModelConfig;
  composing: string[];
}

export const isEnsembleConfig = (config: ModelConfig | undefined): boolean => config?.platform === 'ensemble';

/** Cheap look at a config's text, only to load ensembles after the models they run (correctness never depends on it). */
export const looksLikeEnsemble = (configText: string | undefined): boolean => /\bplatform\s*:\s*"ensemble"/.test(configText ?? '');

export class Ensembles {
  private readonly live = new Map<EnsembleScheduler, LiveEnsemble>();
  /** loads per ensemble version, so request ids stay unique across reloads */
  private readonly loads = new Map<string, number>();

  constructor(private readonly manager: EnsembleManagerView) {}

  /** Brings one ensemble version up in `slot` (its config normalised and validated on its own). */
  async load(name: string, slot: VersionSlot): Promise<void> {
    const config = slot.config!;
    const version = String(slot.version);
    const key = `${name}\0${version}`;
    const load = (this.loads.get(key) ?? 0) + 1;
    this.loads.set(key, load);
    const m = this.manager;
    const scheduler = new EnsembleScheduler({
      model: name,
      version,
      config,
      bus: m.options.bus,
      now: m.now,
      idPrefix: load === 1 ? `${name}:${version}:` : `${name}:${version}~${load}:`,
      host: {
        served: (model, v) => {
          const s = m.require(model, v);
          return { version: s.version, config: s.config };
        },
        infer: (model, v, req) => m.infer(model, v, req),
      },
      // no longer follows its composing models once it starts draining
      onStopping: () => this.live.delete(scheduler),
    });
    slot.scheduler = scheduler;
    await scheduler.start();
    const entry: LiveEnsemble = { name, slot, config, composing: composingModels(config) };
    this.live.set(scheduler, entry);
    this.evaluate(entry);
  }

  /** A model changed state: every ensemble that runs it is re-evaluated (ensembles of ensembles too). */
  modelChanged(model: string): void {
    if (this.live.size === 0) return;
    for (const e of [...this.live.values()]) {
      if (e.name !== model && e.composing.includes(model)) this.evaluate(e);
    }
  }

  /** Why the ensemble cannot serve now, or undefined when it can. */
  problem(name: string, config: ModelConfig): string | undefined {
    const steps = config.ensemble_scheduling?.step ?? [];
    // First, and whatever state the others are in: a cycle is stable (each ensemble on it names it), where
    // "b is not ready" would quote b's reason, which quotes a's, without end.
    const cycle = ensembleCycle(name, (model) => {
      const c = model === name ? config : this.manager.get(model)?.config;
      return isEnsembleConfig(c) ? composingModels(c!) : undefined;
    });
    if (cycle) return cycleMessage(cycle);
    for (const s of steps) {
      const model = s.model_name ?? '';
      const v = (s.model_version ?? -1) > 0 ? String(s.model_version) : undefined;
      const served = this.manager.get(model, v);
      if (!served) return `ensemble ${name} contains models that are not available: ${model}`;
      if (served.state !== 'READY') {
        return `composing model '${model}'${v ? ` version ${v}` : ''} is not ready (${served.state}${served.reason ? `: ${served.reason}` : ''})`;
      }
    }
    const issues = validateEnsembleSteps(config, (model) => {
      const s = this.manager.get(model);
      return s && s.state === 'READY' ? s.config : undefined;
    });
    return issues[0]?.message;
  }

  private evaluate(e: LiveEnsemble): void {
    const reason = this.problem(e.name, e.config);
    const state: ModelState = reason ? 'UNAVAILABLE' : 'READY';
    if (e.slot.state !== state || e.slot.reason !== reason) this.manager.setState(e.name, e.slot, state, reason);
  }
}
