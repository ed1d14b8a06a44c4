/**
 * What both stub backends (pytorch, python) work out the same way at load time: the Python interpreter
 * (unless the pytorch backend runs its native stub), the load timeout, the model file's presence, and
 * the StubExecutor plan around a backend's codec.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LoadedModel, ModelLoadContext } from '../types';
import { executeTimeoutMs, finalTimeoutMs, loadTimeoutMs } from './stub-params';
import { sendStallMs } from './send-window';
import { StubExecutor, type StubBatchCodec, type StubModelPlan } from './executor';
import { isDecoupled } from '../../infer/response-stream';
import { pythonStub, type StubProgram } from './program';

/** Debian's interpreter, where `apt-get install python3-torch` lands (the `python3` on PATH may be another). */
export const DEFAULT_PYTHON = '/usr/bin/python3';

/** --python, else INFERSCOPE_PYTHON, else /usr/bin/python3. */
export function resolvePython(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return option || env.INFERSCOPE_PYTHON || DEFAULT_PYTHON;
}

export { LOAD_TIMEOUT_KEY, EXECUTE_TIMEOUT_KEY, loadTimeoutMs, executeTimeoutMs, finalTimeoutMs } from './stub-params';

export function requireModelFile(ctx: ModelLoadContext): void {
  if (!existsSync(ctx.modelFile) || !statSync(ctx.modelFile).isFile()) {
    throw new Error(`unable to load model '${ctx.model}' version ${ctx.version}: model file '${ctx.modelFile}' does not exist`);
  }
}

export function loadStubModel(
  ctx: ModelLoadContext,
  backend: StubModelPlan['backend'],
  codec: StubBatchCodec,
  settings: Record<string, unknown>,
  env?: Record<string, string>,
  program: StubProgram = pythonStub(resolvePython(ctx.python)),
): LoadedModel {
  const notes: string[] = [];
  const executor = new StubExecutor({
    backend,
    model: ctx.model,
    version: ctx.version,
    modelFile: ctx.modelFile,
    modelDir: dirname(ctx.versionDir),
    config: ctx.config,
    program,
    settings,
    env,
    codec,
    gpuCount: ctx.gpuCount,
    weightsBytes: statSync(ctx.modelFile).size,
    memory: ctx.memory,
    loadTimeoutMs: loadTimeoutMs(ctx.config),
    executeTimeoutMs: executeTimeoutMs(ctx.config),
    log: ctx.log,
    notes,
    calls: ctx.calls,
    maxFrameBytes: ctx.maxStubFrameBytes,
    decoupled: isDecoupled(ctx.config),
    finalTimeoutMs: finalTimeoutMs(ctx.config),
    sendStallMs: sendStallMs(ctx.config),
    notesChanged: ctx.notesChanged,
  });
  return { executor, notes, unload: () => executor.stopAll() };
}
