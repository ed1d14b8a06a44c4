// The architecture floor's worker with the real model (architecture-floor.ts, `withModel`): one
// onnxruntime session (intra-op 1, the serve benchmark's setting) run synchronously through the same native
// binding the product's worker uses, on each batch the main thread posts; answers the batch's
// probabilities, the output buffer transferred. No validation, no statistics, no claims: the least any
// server built this way must do per batch.
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { loadNativeBinding, NativeSession } from '../../apps/server/src/backends/onnxruntime/native-session.mjs';

const binding = loadNativeBinding();
if (!binding) throw new Error('onnxruntime-node native binding not reachable (see native-session.mjs)');
const session = new NativeSession(binding, workerData.modelFile, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
const [input] = session.inputNames;
const [output] = session.outputNames;
parentPort.on('message', (m) => {
  const results = session.run({ [input]: new ort.Tensor('float32', new Float32Array(m.data), [m.n, 784]) }, [output]);
  const data = results[output].data;
  const out = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : data.slice();
  parentPort.postMessage({ id: m.id, out: out.buffer }, [out.buffer]);
});
parentPort.postMessage({ ready: true });
