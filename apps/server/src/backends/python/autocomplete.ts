/**
 * Triton's auto-complete for python models: when model.py defines the static
 * TritonPythonModel.auto_complete_config, it runs (apps/server/python/auto_complete.py, in the stub
 * interpreter) on the config as Triton's JSON and may add inputs, outputs, max_batch_size and dynamic
 * batching. What it adds is taken back into the config; a conflict or an exception is the model's
 * UNAVAILABLE reason. Models without the hook keep their config as written.
 */
import { runToExit } from '../../child-process/run-to-exit';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelConfig } from '@inferscope/core/config';
import { modelConfigToJson } from '@inferscope/core/config';
import { resolvePython } from '../stub/plan';
import { READ_LIMITS, UnsafeFileError, readRegularText } from '../../repository/safe-read';

const SCRIPT = fileURLToPath(new URL('../../../python/auto_complete.py', import.meta.url));
const TIMEOUT_MS = 60_000;

/** The keys auto_complete_config may set, taken back from its answer. */
const COMPLETED = ['input', 'output', 'max_batch_size', 'dynamic_batching', 'model_transaction_policy', 'instance_group'] as const;

export async function autoCompletePythonConfig(modelFile: string, config: ModelConfig, python?: string): Promise<ModelConfig> {
  if (!/def\s+auto_complete_config\s*\(/.test(readFileSync(modelFile, 'utf8'))) return config;
  const dir = mkdtempSync(join(tmpdir(), 'inferscope-autocomplete-'));
  const resultFile = join(dir, 'result.json');
  try {
    // its own process group, watched to its exit: a model that forks or hangs cannot stall the load
    const run = await runToExit(resolvePython(python), [SCRIPT, modelFile, resultFile], {
      label: `auto_complete_config of model '${config.name}'`,
      timeoutMs: TIMEOUT_MS,
      stdin: JSON.stringify(modelConfigToJson(config)),
    }).catch((err: Error) => {
      throw new Error(`auto_complete_config of '${modelFile}' did not finish: ${err.message}`);
    });
    if (run.timedOut || run.code !== 0) {
      const how = run.timedOut ? `no answer within ${TIMEOUT_MS / 1000} s` : run.signal ? `killed by ${run.signal}` : `exit code ${run.code}`;
      const last = run.stderr.filter((l) => l.trim() !== '').at(-1);
      throw new Error(`auto_complete_config of '${modelFile}' did not finish: ${how}${last ? `: ${last.trim()}` : ''}`);
    }
    // the model's process wrote it: read with the config's cap (a hostile model could write gigabytes)
    const text = await readRegularText(resultFile, READ_LIMITS.config).catch((err: Error) => {
      throw new Error(`auto_complete_config of model '${config.name}' returned too much: ${err instanceof UnsafeFileError && err.code === 'ETOOBIG' ? `more than the ${READ_LIMITS.config} bytes a config may have` : err.message}`);
    });
    const result = JSON.parse(text) as { config?: Record<string, unknown>; error?: string };
    if (result.error !== undefined) throw new Error(`auto_complete_config of model '${config.name}' raised ${result.error}`);
    const out: Record<string, unknown> = { ...config };
    for (const key of COMPLETED) {
      const v = result.config?.[key];
      const empty = v === undefined || (Array.isArray(v) && v.length === 0) || (key === 'max_batch_size' && v === 0);
      if (!empty) out[key] = v;
    }
    return out as ModelConfig;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
