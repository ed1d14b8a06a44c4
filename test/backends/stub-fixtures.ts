/**
 * Set-up for the stub backend tests: temp repositories holding python models written here (in the style
 * of Triton's add_sub example, numpy only), a loader for the real python/pytorch backends without the HTTP
 * server, a JSON infer helper, and whether /usr/bin/python3 has torch (tests that need it skip otherwise).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import { getBackend } from '../../apps/server/src/backends/registry';
import type { LoadedModel } from '../../apps/server/src/backends/types';
import { nativeStub, type TorchStubChoice } from '../../apps/server/src/backends/pytorch/native-stub';

export const PYTHON = '/usr/bin/python3';

function probe(code: string): string | null {
  try {
    execFileSync(PYTHON, ['-c', code], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    return null;
  } catch (err) {
    return ((err as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1)) || (err as Error).message;
  }
}

/** Skip reason for tests that need numpy / torch under /usr/bin/python3 (false = run). */
export const NO_NUMPY: string | false = (() => {
  const why = probe('import numpy');
  return why ? `needs numpy for ${PYTHON} (apt-get install python3-numpy): ${why}` : false;
})();
export const NO_TORCH: string | false = (() => {
  const why = probe('import torch');
  return why ? `needs torch for ${PYTHON} (apt-get install python3-torch libopenblas0-pthread): ${why}` : false;
})();

/**
 * Why the native torch stub cannot run here (false = it can). Wherever torch is installed its headers are
 * too, and npm install builds the stub: torch-backend.test.ts fails, not skips, when it is missing there.
 */
export const NATIVE_STUB_MISSING: string | false = (() => {
  const found = nativeStub();
  return 'missing' in found ? found.missing : false;
})();

/** The two stubs a pytorch model can run on, each with the skip reason of its tests (false = run). */
export const TORCH_STUBS: { stub: Exclude<TorchStubChoice, 'auto'>; skip: string | false }[] = [
  { stub: 'native', skip: NO_TORCH || NATIVE_STUB_MISSING },
  { stub: 'python', skip: NO_TORCH },
];

/** add_sub in the style of Triton's example: OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1. */
export const ADD_SUB_PY = `
import json
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.model_config = model_config = json.loads(args["model_config"])
        output0_config = pb_utils.get_output_config_by_name(model_config, "OUTPUT0")
        output1_config = pb_utils.get_output_config_by_name(model_config, "OUTPUT1")
        self.output0_dtype = pb_utils.triton_string_to_numpy(output0_config["data_type"])
        self.output1_dtype = pb_utils.triton_string_to_numpy(output1_config["data_type"])
        print("initialize", args["model_name"], args["model_version"], args["model_instance_name"], args["model_instance_kind"])

    def execute(self, requests):
        responses = []
        for request in requests:
            in_0 = pb_utils.get_input_tensor_by_name(request, "INPUT0")
            in_1 = pb_utils.get_input_tensor_by_name(request, "INPUT1")
            out_0 = in_0.as_numpy() + in_1.as_numpy()
            out_1 = in_0.as_numpy() - in_1.as_numpy()
            out_tensor_0 = pb_utils.Tensor("OUTPUT0", out_0.astype(self.output0_dtype))
            out_tensor_1 = pb_utils.Tensor("OUTPUT1", out_1.astype(self.output1_dtype))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out_tensor_0, out_tensor_1]))
        return responses

    def finalize(self):
        print("Cleaning up...")
`;

export function addSubConfig(name = 'add_sub', extra = ''): string {
  return `name: "${name}"
backend: "python"
max_batch_size: 8
input [
  { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
  { name: "INPUT1" data_type: TYPE_FP32 dims: [ 4 ] }
]
output [
  { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
  { name: "OUTPUT1" data_type: TYPE_FP32 dims: [ 4 ] }
]
dynamic_batching { max_queue_delay_microseconds: 20000 }
instance_group [ { count: 1 kind: KIND_CPU } ]
${extra}`;
}

export interface TempRepo {
  dir: string;
  add(name: string, config: string, files: Record<string, string | Uint8Array>): void;
  remove(): void;
}

export function tempRepo(prefix = 'is-stub-'): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    add(name, config, files) {
      mkdirSync(join(dir, name, '1'), { recursive: true });
      writeFileSync(join(dir, name, 'config.pbtxt'), config);
      for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, name, '1', file), content);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An interpreter that is /usr/bin/python3 where `import torch` fails as it does without python3-torch. */
export function interpreterWithoutTorch(dir: string): string {
  const fake = join(dir, 'no-torch-site');
  mkdirSync(join(fake, 'torch'), { recursive: true });
  writeFileSync(join(fake, 'torch', '__init__.py'), 'raise ModuleNotFoundError("No module named \'torch\'", name="torch")\n');
  const wrapper = join(dir, 'python-without-torch');
  writeFileSync(wrapper, `#!/bin/sh\nPYTHONPATH="${fake}" exec ${PYTHON} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

export interface LoadedStub {
  loaded: LoadedModel;
  ledger: MemoryLedger;
  logs: string[];
}

/** The real backend for `config` (python or pytorch) on <repo>/<model>/1, without a server. */
export async function loadStub(
  repoDir: string,
  model: string,
  config: ModelConfig,
  file: string,
  opts: { budgets?: Record<string, number>; gpuCount?: number; python?: string; torchStub?: TorchStubChoice } = {},
): Promise<LoadedStub> {
  const ledger = new MemoryLedger({ bus: new EventBus(), budgets: opts.budgets });
  const logs: string[] = [];
  const versionDir = join(repoDir, model, '1');
  const loaded = await getBackend(config).load({
    model, version: '1', versionDir, modelFile: join(versionDir, file), config,
    gpuCount: opts.gpuCount ?? 0, log: (m) => logs.push(m), memory: ledger, python: opts.python,
    torchStub: opts.torchStub,
  });
  return { loaded, ledger, logs };
}

export async function inferJson(url: string, model: string, inputs: unknown[], outputs?: string[]): Promise<{ status: number; body: any }> {
  const r = await fetch(`${url}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs, ...(outputs ? { outputs: outputs.map((name) => ({ name })) } : {}) }),
  });
  return { status: r.status, body: await r.json() };
}

export async function modelIndex(url: string): Promise<{ name: string; version?: string; state?: string; reason?: string }[]> {
  const r = await fetch(`${url}/v2/repository/index`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return (await r.json()) as { name: string; state?: string; reason?: string }[];
}
