/**
 * Which models an ensemble brings with it, read from the manager's entries: what `unload_dependents`
 * (Triton's) may take down with an ensemble. A composing model goes with it only when it is loaded, was not
 * asked for by name, and no other loaded ensemble still runs it.
 */
import { composingModels } from '../ensemble/plan';
import { isEnsembleConfig } from './ensembles';
import type { ModelConfig } from '@inferscope/core/config';
import type { ModelEntry } from './types';

/** The models a loaded ensemble runs (none for any other model). */
export function composingOf(entries: ReadonlyMap<string, ModelEntry>, name: string): string[] {
  const slots = [...(entries.get(name)?.versions.values() ?? [])];
  return [...new Set(slots.flatMap((s) => (s.config && isEnsembleConfig(s.config) ? composingModels(s.config) : [])))];
}

/** A version of the model is loaded, loading or unloading (an unloaded one stays listed, UNAVAILABLE). */
export function isLoaded(entries: ReadonlyMap<string, ModelEntry>, name: string): boolean {
  return [...(entries.get(name)?.versions.values() ?? [])].some((s) => s.state !== 'UNAVAILABLE');
}

/** Whether `model` may be unloaded with an ensemble that brought it (see the file comment). */
export function unloadsWithEnsemble(entries: ReadonlyMap<string, ModelEntry>, model: string, requestedByName: ReadonlySet<string>): boolean {
  if (requestedByName.has(model) || !isLoaded(entries, model)) return false;
  return ![...entries.keys()].some((n) => isLoaded(entries, n) && composingOf(entries, n).includes(model));
}

/**
 * For a model being loaded: when its config is an ensemble's, the composing models to load first (those
 * not READY and not already loading). A config that does not parse brings none: its own load says why.
 */
export function composingToLoad(parse: (text: string) => ModelConfig, configText: string, loading: ReadonlySet<string>, isReady: (model: string) => boolean): string[] {
  let config: ModelConfig;
  try {
    config = parse(configText);
  } catch {
    return [];
  }
  if (!isEnsembleConfig(config)) return [];
  return composingModels(config).filter((model) => !loading.has(model) && !isReady(model));
}
