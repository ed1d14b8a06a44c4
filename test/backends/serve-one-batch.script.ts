// Run by ort-subprocess.test.ts as `node --import tsx <this file>`: the way the server runs, so the
// instance worker must start from a TypeScript main thread. Prints the output shape as JSON.
import { instance, loadModel, mlpConfig, request, floats } from './fixtures';

const { loaded } = await loadModel('mlp_classifier', mlpConfig());
const inst = instance('mlp_classifier_0_0');
await loaded.executor.startInstance!(inst);
const [res] = await loaded.executor.execute(inst, [request([{ name: 'input', datatype: 'FP32', shape: [2, 784], data: floats(2, 784, 0) }])]);
console.log(JSON.stringify({ shape: res[0].shape }));
await loaded.unload();
