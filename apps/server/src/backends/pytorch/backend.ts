/**
 * The pytorch backend (platform pytorch_libtorch): TorchScript model.pt files, each instance a stub
 * process: the native stub on libtorch (apps/server/native/torch-stub) where it is built, else the
 * Python one running torch.jit.load (apps/server/python/inferscope_stub/torch_runner.py); --torch-stub
 * chooses (native-stub.ts). Where the interpreter has no torch, the Python stub's instances fail to start
 * and the model is UNAVAILABLE with the install line.
 */
import { availableParallelism } from 'node:os';
import type { Backend, LoadedModel, ModelLoadContext } from '../types';
import { DEFAULT_PYTHON, loadStubModel, requireModelFile, resolvePython } from '../stub/plan';
import { pythonStub, type StubProgram } from '../stub/program';
import { torchCodec } from './codec';
import { torchSettings } from './settings';
import { nativeStub, nativeTorchStub } from './native-stub';

/**
 * The native stub is built against Debian's libtorch, /usr/bin/python3's torch, and links no CUDA; so
 * `auto` leaves to the Python stub a model that names another interpreter's torch or wants a GPU this host has.
 */
function autoWantsPython(ctx: ModelLoadContext, python: string): string | null {
  if (python !== DEFAULT_PYTHON) return `the stub interpreter is ${python}, whose torch may not be the one the native stub was built against`;
  const gpu = (ctx.config.instance_group ?? []).some((g) => g.kind === 'KIND_GPU');
  if (gpu && ctx.gpuCount > 0) return 'it has KIND_GPU instances and the native stub runs on CPU only';
  return null;
}

function stubProgram(ctx: ModelLoadContext): StubProgram {
  const choice = ctx.torchStub ?? 'auto';
  const python = resolvePython(ctx.python);
  if (choice === 'python') return pythonStub(python);
  const why = choice === 'auto' ? autoWantsPython(ctx, python) : null;
  if (why) {
    ctx.log(`model '${ctx.model}': running it on the Python stub: ${why}`);
    return pythonStub(python);
  }
  const native = nativeStub();
  if ('binary' in native) return nativeTorchStub(native.binary);
  if (choice === 'native') throw new Error(`model '${ctx.model}' cannot run on the native torch stub (--torch-stub native): ${native.missing}`);
  ctx.log(`model '${ctx.model}': ${native.missing}; running it on the Python stub`);
  return pythonStub(python);
}

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
  return loadStubModel(ctx, 'pytorch', torchCodec(ctx.config), { ...settings }, { OPENBLAS_NUM_THREADS: threads, OMP_NUM_THREADS: threads }, stubProgram(ctx));
}

export const pytorchBackend: Backend = {
  name: 'pytorch',
  platforms: ['pytorch_libtorch', 'libtorch'],
  defaultModelFilename: 'model.pt',
  load,
};
