/**
 * What the repositories' scans ask the model manager to load, unload or reload: at start, by control
 * mode; at each poll, the difference from the models known before it.
 */
import { diffRepository, type RepositoryDiff } from '@inferscope/core/repository';
import type { ScannedModel } from '../repository/scan';
import { looksLikeEnsemble } from './ensembles';
import type { ControlMode } from './types';

/**
 * The models loaded at start: every one in the repositories, or in explicit mode those `--load-model`
 * names ('*' = all). Ensembles after the models they run, as Triton loads them (they would come up later
 * anyway).
 */
export function modelsToLoadAtStart(models: ReadonlyMap<string, ScannedModel>, mode: ControlMode, loadModels: readonly string[] = []): string[] {
  const wanted = mode === 'explicit' && !loadModels.includes('*') ? [...loadModels] : [...models.keys()];
  return wanted.sort((a, b) => Number(looksLikeEnsemble(models.get(a)?.configText)) - Number(looksLikeEnsemble(models.get(b)?.configText)));
}

/**
 * A poll's changes: `scanned` (what the scan found) against the fingerprints known when it began. A save
 * that wrote a config while the scan ran may have been scanned before its write: the save's own view
 * (`knownNow`) stands in `scanned`, or this poll would reload the older file over the saved one.
 */
export function pollChanges(before: ReadonlyMap<string, string>, knownNow: ReadonlyMap<string, ScannedModel>, scanned: Map<string, ScannedModel>): RepositoryDiff {
  const was = new Map(before);
  for (const [name, s] of knownNow) {
    if (s.fingerprint === was.get(name) || !scanned.has(name)) continue;
    was.set(name, s.fingerprint);
    scanned.set(name, s);
  }
  return diffRepository(was, new Map([...scanned].map(([n, s]) => [n, s.fingerprint])));
}
