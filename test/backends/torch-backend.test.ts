// The pytorch backend, on each of its two stubs (native libtorch and Python): mlp_classifier_torch
// (committed and freshly generated) gives mlp_classifier's outputs to 1e-5; Triton's naming rules
// (INPUT__0 / OUTPUT__1) map tensors by index; a GPU instance without CUDA falls back to CPU visibly; a
// corrupt model.pt and a missing torch make the model UNAVAILABLE with a clear message while other models
// serve. Tests that need torch skip without it; the native stub must be built wherever torch is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { loadModelConfig, type ModelConfig } from '@inferscope/core/config';
import type { ComputePhases } from '@inferscope/core';
import { torchSettings } from '../../apps/server/src/backends/pytorch/settings';
import { TORCH_VERSION_HEADER } from '../../apps/server/src/backends/pytorch/native-stub';
import type { StubExecutor } from '../../apps/server/src/backends/stub/executor';
import { generateTorchModel } from '../../apps/server/src/model-generator/torch-models';
import { startTestServer, DEMO_REPO } from '../support/server.ts';
import { floats, instance, request } from './fixtures';
import { NATIVE_STUB_MISSING, NO_TORCH, PYTHON, TORCH_STUBS, interpreterWithoutTorch, loadStub, modelIndex, tempRepo } from './stub-fixtures.ts';

const torchConfig = (): ModelConfig => {
  const { config, error } = loadModelConfig(readFileSync(join(DEMO_REPO, 'mlp_classifier_torch/config.pbtxt'), 'utf8'), { modelName: 'mlp_classifier_torch', gpuCount: 0 });
  assert.ok(config, String(error?.message));
  return config;
};

async function ortReference(x: Float32Array, rows: number): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(join(DEMO_REPO, 'mlp_classifier/1/model.onnx'), { intraOpNumThreads: 1 });
  const out = await session.run({ input: new ort.Tensor('float32', x, [rows, 784]) });
  await session.release();
  return out.probabilities.data as Float32Array;
}

function maxDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

test('settings: Triton keys, and instances x intra-op threads stay within the cores by default', () => {
  const base = torchConfig();
  assert.deepEqual(torchSettings(base, 2), { intraOpThreads: 1, interOpThreads: 1, inferenceMode: true, disableOptimizedExecution: false });
  const two = { ...base, parameters: {}, instance_group: [{ name: 'g', kind: 'KIND_CPU', count: 2 }] } as ModelConfig;
  assert.equal(torchSettings(two, 8).intraOpThreads, 4);
  const off = { ...base, parameters: { DISABLE_OPTIMIZED_EXECUTION: { string_value: 'true' }, INFERENCE_MODE: { string_value: 'false' } } } as ModelConfig;
  assert.equal(torchSettings(off, 2).disableOptimizedExecution, true);
  assert.equal(torchSettings(off, 2).inferenceMode, false);
  assert.throws(() => torchSettings({ ...base, parameters: { INTRA_OP_THREAD_COUNT: { string_value: 'two' } } } as ModelConfig, 2), /must be an integer >= 0 and <= 1024 \(plain digits\), got 'two'/);
});

test('wherever torch and its headers are installed, the native stub is built and current', { skip: NO_TORCH }, () => {
  if (!existsSync(TORCH_VERSION_HEADER)) return;
  assert.equal(NATIVE_STUB_MISSING, false, 'npm install builds it (npm run build:torch-stub)');
});

const READY_LINE = {
  native: /ready on cpu \(libtorch .* native stub, 1 intra-op \/ 1 inter-op threads, cpu\)/,
  python: /ready on cpu \(torch .*1 intra-op \/ 1 inter-op threads, cpu\)/,
};

for (const { stub: torchStub, skip } of TORCH_STUBS) {
  test(`${torchStub} stub: mlp_classifier_torch (committed and regenerated) answers as mlp_classifier does, within 1e-5`, { skip }, async () => {
    const rows = 5;
    const x = floats(rows, 784, 11);
    const expected = await ortReference(x, rows);
    const fresh = tempRepo();
    generateTorchModel(fresh.dir, PYTHON);
    try {
      for (const repo of [DEMO_REPO, fresh.dir]) {
        const { loaded, ledger, logs } = await loadStub(repo, 'mlp_classifier_torch', torchConfig(), 'model.pt', { torchStub });
        const inst = instance('mlp_classifier_torch_cpu_0');
        try {
          await loaded.executor.startInstance!(inst);
          // two requests in one batch: the outputs are split back per request
          const [a, b] = await loaded.executor.execute(inst, [
            request([{ name: 'input', datatype: 'FP32', shape: [2, 784], data: x.slice(0, 2 * 784) }]),
            request([{ name: 'input', datatype: 'FP32', shape: [3, 784], data: x.slice(2 * 784) }]),
          ]);
          assert.deepEqual(a[0].shape, [2, 10]);
          assert.deepEqual(b[0].shape, [3, 10]);
          const got = new Float32Array([...(a[0].data as Float32Array), ...(b[0].data as Float32Array)]);
          assert.ok(maxDiff(got, expected) < 1e-5, `max difference ${maxDiff(got, expected)} (${repo})`);
          // compute_input / compute_output: both sides of the pipe measured (encode here + decode in the stub;
          // layout in the stub + split here)
          const phases = await new Promise<ComputePhases | undefined>((resolve, reject) => loaded.executor.executeWithCallback!(inst, [
            request([{ name: 'input', datatype: 'FP32', shape: [1, 784], data: x.slice(0, 784) }]),
          ], (err, _r, p) => (err ? reject(err) : resolve(p))));
          assert.ok(phases && phases.inputUs > 0 && phases.outputUs > 0, `phases ${JSON.stringify(phases)}`);
          assert.ok(logs.some((l) => READY_LINE[torchStub].test(l)), logs.join('\n'));
          // BLAS threads follow the intra-op count (OpenBLAS would otherwise start one per core)
          const pid = (loaded.executor as StubExecutor).describe()[0].pid!;
          assert.match(readFileSync(`/proc/${pid}/environ`, 'utf8'), /(^|\0)OPENBLAS_NUM_THREADS=1\0/);
          const [entry] = ledger.snapshot().flatMap((d) => d.entries);
          assert.equal(entry.source, 'measured');
          assert.ok(entry.bytes > 100 * 1024 * 1024, `a torch stub holds > 100 MiB resident, got ${entry.bytes}`);
        } finally {
          await loaded.unload();
        }
      }
    } finally {
      fresh.remove();
    }
  });

  test(`${torchStub} stub: Triton's naming rules: INPUT__n / OUTPUT__n by index, whatever the config order`, { skip }, async () => {
    const repo = tempRepo();
    repo.add('indexed', '', {});
    // traced, not scripted: scripting needs the source in a file
    execFileSync(PYTHON, ['-c', `
import torch
class M(torch.nn.Module):
    def forward(self, a, b):
        return a - b, a * b
torch.jit.trace(M(), (torch.ones(1, 2), torch.ones(1, 2))).save(${JSON.stringify(join(repo.dir, 'indexed/1/model.pt'))})
`]);
    const config: ModelConfig = {
      name: 'indexed', backend: 'pytorch', max_batch_size: 4,
      // listed in reverse: the __n suffix, not the order, decides
      input: [{ name: 'INPUT__1', data_type: 'TYPE_FP32', dims: [2] }, { name: 'INPUT__0', data_type: 'TYPE_FP32', dims: [2] }],
      output: [{ name: 'OUTPUT__1', data_type: 'TYPE_FP32', dims: [2] }, { name: 'OUTPUT__0', data_type: 'TYPE_FP32', dims: [2] }],
      instance_group: [{ name: 'indexed', kind: 'KIND_CPU', count: 1 }],
    };
    const { loaded } = await loadStub(repo.dir, 'indexed', config, 'model.pt', { torchStub });
    const inst = instance('indexed_0');
    try {
      await loaded.executor.startInstance!(inst);
      const [res] = await loaded.executor.execute(inst, [request([
        { name: 'INPUT__0', datatype: 'FP32', shape: [1, 2], data: new Float32Array([10, 20]) },
        { name: 'INPUT__1', datatype: 'FP32', shape: [1, 2], data: new Float32Array([2, 4]) },
      ])]);
      const by = Object.fromEntries(res.map((t) => [t.name, Array.from(t.data as Float32Array)]));
      assert.deepEqual(by.OUTPUT__0, [8, 16], 'a - b');
      assert.deepEqual(by.OUTPUT__1, [20, 80], 'a * b');
    } finally {
      await loaded.unload();
      repo.remove();
    }
  });

  test(`${torchStub} stub: KIND_GPU where torch has no CUDA: the model runs on CPU, says so, and charges host memory`, { skip }, async () => {
    const config = { ...torchConfig(), instance_group: [{ name: 'gpu', kind: 'KIND_GPU', count: 1, gpus: [0] }] } as ModelConfig;
    // gpuCount 1: the host claims a GPU, so the stub really asks torch for cuda:0
    const { loaded, ledger } = await loadStub(DEMO_REPO, 'mlp_classifier_torch', config, 'model.pt', { gpuCount: 1, torchStub });
    const inst = instance('gpu_0', 'KIND_GPU', 'gpu0');
    try {
      await loaded.executor.startInstance!(inst);
      assert.equal(loaded.notes.length, 1);
      assert.match(loaded.notes[0], /^CUDA unavailable to torch \(.+\); running on CPU$/);
      const [res] = await loaded.executor.execute(inst, [request([{ name: 'input', datatype: 'FP32', shape: [1, 784], data: floats(1, 784, 3) }])]);
      assert.deepEqual(res[0].shape, [1, 10]);
      assert.deepEqual(ledger.snapshot().filter((d) => d.entries.length > 0).map((d) => d.device), ['cpu']);
    } finally {
      await loaded.unload();
    }
  });

  test(`${torchStub} stub: a corrupt model.pt: UNAVAILABLE with the load error; the ONNX models serve`, { skip }, async () => {
    const repo = tempRepo();
    cpSync(join(DEMO_REPO, 'mlp_classifier_torch'), join(repo.dir, 'mlp_classifier_torch'), { recursive: true });
    cpSync(join(DEMO_REPO, 'text_encoder'), join(repo.dir, 'text_encoder'), { recursive: true });
    const file = join(repo.dir, 'mlp_classifier_torch/1/model.pt');
    writeFileSync(file, readFileSync(file).subarray(0, 4096)); // truncated: a broken zip archive
    const server = await startTestServer({ modelRepositories: [repo.dir], torchStub });
    try {
      const index = await modelIndex(server.url);
      const m = index.find((x) => x.name === 'mlp_classifier_torch');
      assert.equal(m?.state, 'UNAVAILABLE');
      assert.match(m?.reason ?? '', /unable to load TorchScript model '.*model\.pt': /);
      assert.equal(index.find((x) => x.name === 'text_encoder')?.state, 'READY');
    } finally {
      await server.close();
      repo.remove();
    }
  });
}

test('--torch-stub auto: native for a CPU model of /usr/bin/python3; Python for another interpreter, or KIND_GPU on a GPU host', { skip: NO_TORCH || NATIVE_STUB_MISSING, timeout: 120_000 }, async () => {
  const gpuConfig = { ...torchConfig(), instance_group: [{ name: 'gpu', kind: 'KIND_GPU', count: 1, gpus: [0] }] } as ModelConfig;
  const repo = tempRepo();
  const cases = [
    { config: torchConfig(), inst: instance('mlp_classifier_torch_cpu_0'), opts: {}, stub: 'native' as const, why: null },
    { config: torchConfig(), inst: instance('mlp_classifier_torch_cpu_0'), opts: { python: join(repo.dir, 'python3-link') }, stub: 'python' as const, why: /the stub interpreter is .*python3-link/ },
    { config: gpuConfig, inst: instance('gpu_0', 'KIND_GPU', 'gpu0'), opts: { gpuCount: 1 }, stub: 'python' as const, why: /KIND_GPU instances and the native stub runs on CPU only/ },
  ];
  symlinkSync(PYTHON, join(repo.dir, 'python3-link')); // the same interpreter under another name: auto cannot know that
  try {
    for (const c of cases) {
      const { loaded, logs } = await loadStub(DEMO_REPO, 'mlp_classifier_torch', c.config, 'model.pt', c.opts);
      try {
        await loaded.executor.startInstance!(c.inst);
        assert.ok(logs.some((l) => READY_LINE[c.stub].test(l)) && !(c.stub === 'python' && logs.some((l) => READY_LINE.native.test(l))), logs.join('\n'));
        if (c.why) assert.ok(logs.some((l) => c.why.test(l)), logs.join('\n'));
      } finally {
        await loaded.unload();
      }
    }
  } finally {
    repo.remove();
  }
});

test('Python stub without torch: UNAVAILABLE naming what to install; the ONNX models serve', async () => {
  const repo = tempRepo();
  cpSync(join(DEMO_REPO, 'mlp_classifier_torch'), join(repo.dir, 'mlp_classifier_torch'), { recursive: true });
  cpSync(join(DEMO_REPO, 'text_encoder'), join(repo.dir, 'text_encoder'), { recursive: true });
  const server = await startTestServer({ modelRepositories: [repo.dir], python: interpreterWithoutTorch(repo.dir), torchStub: 'python' });
  try {
    const index = await modelIndex(server.url);
    const m = index.find((x) => x.name === 'mlp_classifier_torch');
    assert.equal(m?.state, 'UNAVAILABLE');
    assert.match(m?.reason ?? '', /PyTorch is not importable by .*No module named 'torch'.*install it with: apt-get install python3-torch libopenblas0-pthread/);
    assert.equal(index.find((x) => x.name === 'text_encoder')?.state, 'READY');
  } finally {
    await server.close();
    repo.remove();
  }
});
