/**
 * The python backend: a Triton model.py (class TritonPythonModel) run in a stub process per instance,
 * with InferScope's triton_python_backend_utils (apps/server/python/). An exception in initialize()
 * makes the instance fail to start, so the model is UNAVAILABLE with the exception's message.
 */
import type { Backend, LoadedModel, ModelLoadContext } from '../types';
import { loadStubModel, requireModelFile } from '../stub/plan';
import { pythonCodec } from './codec';
import { autoCompletePythonConfig } from './autocomplete';

async function load(ctx: ModelLoadContext): Promise<LoadedModel> {
  requireModelFile(ctx);
  return loadStubModel(ctx, 'python', pythonCodec(ctx.config), {});
}

export const pythonBackend: Backend = {
  name: 'python',
  platforms: [],
  defaultModelFilename: 'model.py',
  load,
  autoComplete: (modelFile, config, opts) => autoCompletePythonConfig(modelFile, config, opts.python),
};
