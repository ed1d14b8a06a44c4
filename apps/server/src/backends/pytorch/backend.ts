/**
 * The pytorch backend (platform pytorch_libtorch): TorchScript model.pt files, each instance a stub
 * process running torch.jit.load (apps/server/python/inferscope_stub/torch_runner.py). Where the
 * interpreter has no torch, the instances fail to start and the model is UNAVAILABLE with the install line.
 */
import { availableParallelism } from 'node:os';
import type { Backend, LoadedModel, ModelLoadContext } from '../types';
import { loadStubModel, requireModelFile } from '../stub/plan';
import { torchCodec } from './codec';
import { torchSettings } from './settings';

async function load(ctx: ModelLoadContext): Promise<LoadedModel> {
  requireModelFile(ctx);
  for (const io of [...(ctx.config.input ?? []), ...(ctx.config.output ?? [])]) {
    if (io.data_type === 'TYPE_STRING') {
      throw new Error(`'${io.name}' of model '${ctx.model}' is TYPE_STRING: InferScope's pytorch backend takes numeric tensors only (use a python model for strings)`);
    }
  }
  const settings = torchSettings(ctx.config, availableParallelism());
  // Debian's torch runs its matrix products on OpenBLAS, which starts one thread per core of its own
  // unless told otherwise (measured here: 1.2-1.7x the CPU time per batch of the MLP on two busy cores); it must hear
  // the intra-op count before torch is imported.
  const threads = String(settings.intraOpThreads);
  return loadStubModel(ctx, 'pytorch', torchCodec(ctx.config), { ...settings }, { OPENBLAS_NUM_THREADS: threads, OMP_NUM_THREADS: threads });
}

export const pytorchBackend: Backend = {
  name: 'pytorch',
  platforms: ['pytorch_libtorch', 'libtorch'],
  defaultModelFilename: 'model.pt',
  load,
};
