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

export const realConfigEngine: ConfigEngine = {
  parse: (text) => parseModelConfig(text),
  normalize: (config, opts) => normalizeModelConfig(config, opts),
  validate: (config, opts) => validateModelConfig(config, opts).map((i) => ({ message: i.message, line: i.line, column: i.column })),
  print: (config) => printModelConfig(config),
};

/**
 * Saves a live change of cnn_classifier's max_queue_delay_microseconds in `repo` through save-config, as
 * the manager would: scans (the server's view of the folder), lets `beforeSave` change the disk (an
 * attacker's swap), then saves.
 */
export async function saveDelay(repo: string, delayUs: number, beforeSave: () => Promise<void> = async () => {}) {
  const { scanModelFolder } = await import('../../apps/server/src/repository/scan.ts');
  const { saveModelConfig } = await import('../../apps/server/src/config-writeback/save-config.ts');
  const scanned = await scanModelFolder(repo, 'cnn_classifier');
  await beforeSave();
  const raw = parseModelConfig(scanned.configText!);
  const live = structuredClone(raw);
  live.dynamic_batching = { ...live.dynamic_batching, max_queue_delay_microseconds: delayUs };
  const entry = { name: 'cnn_classifier', scanned, resolved: { raw }, maxBatchLimit: 16, versions: new Map() };
  const slot = { version: 1, state: 'READY', config: live, files: [], changedPaths: new Set(['dynamic_batching.max_queue_delay_microseconds']) };
  return saveModelConfig(entry as never, slot as never, realConfigEngine, false);
}
