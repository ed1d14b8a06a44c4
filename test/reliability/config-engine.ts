/**
 * The real config engine (packages/core/src/config) behind the ModelManager's ConfigEngine seam, for
 * reliability tests that drive save-config directly.
 */
import {
  normalizeModelConfig,
  parseModelConfig,
  printModelConfig,
  validateModelConfig,
} from '@inferscope/core/config/index.ts';
import type { ConfigEngine } from '../../apps/server/src/models/runtime.ts';

export const realConfigEngine: ConfigEngine = {
  parse: (text) => parseModelConfig(text),
  normalize: (config, opts) => normalizeModelConfig(config, opts),
  validate: (config, opts) => validateModelConfig(config, opts).map((i) => ({ message: i.message, line: i.line, column: i.column })),
  print: (config) => printModelConfig(config),
};
