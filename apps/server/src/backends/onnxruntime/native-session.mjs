// onnxruntime-node's native session, used synchronously by the worker's blocking loop (worker.mjs).
//
// The public API wraps every native run in `new Promise(r => setImmediate(() => r(native.run(...))))`, so
// each batch costs the worker an event-loop turn; the native call underneath is synchronous anyway. This
// module reaches the binding the public API uses (`onnxruntime-node/dist/binding.js`, onnxruntime-node
// 1.30.0, pinned in package-lock) and checks its shape first: when anything is missing (another version
// laid out differently) `loadNativeBinding()` returns null and the worker keeps the public async API.
// test/backends/ort-native-session.test.ts fails if the pinned version stops offering the fast path.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The native binding with `InferenceSession` (loadModel/run/dispose), or null when not as expected. */
export function loadNativeBinding() {
  try {
    const mod = require('onnxruntime-node/dist/binding.js');
    const binding = mod?.binding;
    const proto = binding?.InferenceSession?.prototype;
    if (typeof mod?.initOrt !== 'function' || !proto) return null;
    for (const m of ['loadModel', 'run', 'dispose']) if (typeof proto[m] !== 'function') return null;
    mod.initOrt(); // log level and the Tensor class outputs are built with, as the public API does
    return binding;
  } catch {
    return null;
  }
}

const providerName = (p) => (typeof p === 'string' ? p : p.name);

/**
 * One native InferenceSession with the public session's surface (inputNames, outputNames, run, release),
 * but synchronous. Execution providers the build does not offer are dropped first, as the public API's
 * backend resolution does; one it offers but cannot load makes loadModel throw (the caller falls back).
 */
export class NativeSession {
  constructor(binding, model, options) {
    const supported = new Set((binding.listSupportedBackends?.() ?? []).map((b) => b.name));
    const eps = options.executionProviders;
    const opts =
      Array.isArray(eps) && supported.size > 0
        ? { ...options, executionProviders: eps.filter((p) => supported.has(providerName(p))) }
        : options;
    this.native = new binding.InferenceSession();
    if (typeof model === 'string') this.native.loadModel(model, opts);
    else this.native.loadModel(model.buffer, model.byteOffset, model.byteLength, opts);
    this.inputNames = this.native.inputMetadata.map((m) => m.name);
    this.outputNames = this.native.outputMetadata.map((m) => m.name);
  }

  /** feeds: name -> ort.Tensor; fetches: output names. Returns name -> tensor ({type, dims, data}). */
  run(feeds, fetches) {
    const wanted = {};
    for (const name of fetches) wanted[name] = null;
    return this.native.run(feeds, wanted, {});
  }

  release() {
    this.native.dispose();
  }
}

/**
 * Runs `session` (a NativeSession) now on plain tensors ({name, type, dims, data}, as kv-cache builds a
 * step's) and returns every output's data by name: the step loop's model in the instance's thread, and
 * the bench's own loop, the same call.
 */
export function runPlainTensors(session, Tensor, inputs) {
  const feeds = {};
  for (const t of inputs) feeds[t.name] = new Tensor(t.type, t.data, t.dims);
  const results = session.run(feeds, session.outputNames);
  const out = {};
  for (const name of session.outputNames) out[name] = results[name].data;
  return out;
}
