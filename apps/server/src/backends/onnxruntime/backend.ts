/**
 * The onnxruntime backend: checks a model version's config against its ONNX file and hands the scheduler
 * an OrtExecutor whose instances are worker threads with their own sessions.
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { Backend, LoadedModel, ModelLoadContext } from '../types';
import { readOnnxSignature } from './onnx-signature';
import { checkConfigAgainstModel } from './autocomplete';
import { executionProviders, sessionOptions } from './session-options';
import { OrtExecutor } from './executor';

async function load(ctx: ModelLoadContext): Promise<LoadedModel> {
  let file = ctx.modelFile;
  // Triton: a model "file" that is a folder holds model.onnx (external-data models).
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'model.onnx');
  if (!existsSync(file)) {
    throw new Error(`unable to load model '${ctx.model}' version ${ctx.version}: model file '${file}' does not exist`);
  }
  checkConfigAgainstModel(readOnnxSignature(file), ctx.config, ctx.model);
  // Refuse bad parameters and unknown accelerators now, as the model's UNAVAILABLE reason, rather than
  // once per instance.
  const cpuCount = availableParallelism();
  sessionOptions(ctx.config, cpuCount);
  for (const g of ctx.config.instance_group ?? []) executionProviders(ctx.config, g.kind ?? 'KIND_CPU', 0);

  const notes: string[] = [];
  const executor = new OrtExecutor({
    model: ctx.model,
    version: ctx.version,
    modelFile: file,
    modelDir: dirname(ctx.versionDir),
    config: ctx.config,
    gpuCount: ctx.gpuCount,
    cpuCount,
    weightsBytes: statSync(file).size,
    memory: ctx.memory,
    log: ctx.log,
    notes,
  });
  return { executor, notes, unload: () => executor.stopAll() };
}

export const onnxRuntimeBackend: Backend = {
  name: 'onnxruntime',
  platforms: ['onnxruntime_onnx'],
  defaultModelFilename: 'model.onnx',
  load,
};
