/**
 * The real config engine (packages/core/src/config) behind the ModelManager's ConfigEngine seam, for
 * reliability tests that drive save-config directly.
 */
import {
  normalizeModelConfig,
  parseModelConfig,
  printModelConfig,
  validateModelConfig,
} from '@inferscope/core/config';
import type { ConfigEngine } from '../../apps/server/src/models/runtime.ts';
import type { ModelEntry, VersionSlot } from '../../apps/server/src/models/types.ts';

export const realConfigEngine: ConfigEngine = {
  parse: (text) => parseModelConfig(text),
  normalize: (config, opts) => normalizeModelConfig(config, opts),
  validate: (config, opts) => validateModelConfig(config, opts).map((i) => ({ message: i.message, line: i.line, column: i.column })),
  print: (config) => printModelConfig(config),
};

/**
 * cnn_classifier in `repo` as the manager holds it after a load (scanned now) with a live change of
 * max_queue_delay_microseconds to `delayUs` not saved yet: the entry and slot save-config is given.
 */
export async function loadedWithDelay(repo: string, delayUs: number) {
  const { scanModelFolder } = await import('../../apps/server/src/repository/scan.ts');
  const scanned = await scanModelFolder(repo, 'cnn_classifier');
  const raw = parseModelConfig(scanned.configText!);
  const live = structuredClone(raw);
  live.dynamic_batching = { ...live.dynamic_batching, max_queue_delay_microseconds: delayUs };
  const config = normalizeModelConfig(raw, { modelName: 'cnn_classifier', gpuCount: 0 });
  const entry = { name: 'cnn_classifier', scanned, resolved: { raw, config }, maxBatchLimit: 16, versions: new Map() };
  const slot = { version: 1, state: 'READY', config: live, files: [], changedPaths: new Set(['dynamic_batching.max_queue_delay_microseconds']) };
  return { entry: entry as unknown as ModelEntry, slot: slot as unknown as VersionSlot };
}

/**
 * Saves a live change of cnn_classifier's max_queue_delay_microseconds in `repo` through save-config, as
 * the manager would: scans (the server's view of the folder), lets `beforeSave` change the disk (an
 * attacker's swap), then saves.
 */
export async function saveDelay(repo: string, delayUs: number, beforeSave: () => Promise<void> = async () => {}) {
  const { saveModelConfig } = await import('../../apps/server/src/models/config-writeback/save-config.ts');
  const { entry, slot } = await loadedWithDelay(repo, delayUs);
  await beforeSave();
  return saveModelConfig(entry, slot, realConfigEngine, false);
}
