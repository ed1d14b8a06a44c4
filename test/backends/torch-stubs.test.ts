// The two pytorch stubs (native libtorch, Python) behave alike where a TorchScript model is unusual: a
// forward() returning a dict (matched by name) of several dtypes, outputs the request did not ask for
// left out, a forward() that raises failing its batch with the model's message (the stub serving on), a tuple
// shorter than the config's OUTPUT__n, and a forward() that never returns (execute_timeout_ms: its stub
// killed and restarted, the next request served). Scripted models, written by torch here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelConfig } from '@inferscope/core/config';
import { startTestServer } from '../support/server.ts';
import { instance, request } from './fixtures';
import { PYTHON, TORCH_STUBS, inferJson, loadStub, tempRepo } from './stub-fixtures.ts';

/** Scripts `source` (a class M) with torch and saves it as <repo>/<model>/1/model.pt. */
function scripted(repo: ReturnType<typeof tempRepo>, model: string, config: string, source: string): void {
  repo.add(model, config, {});
  const file = join(repo.dir, `${model}_def.py`);
  writeFileSync(file, `import torch\nfrom typing import Dict\n${source}\ntorch.jit.script(M()).save(${JSON.stringify(join(repo.dir, model, '1', 'model.pt'))})\n`);
  execFileSync(PYTHON, [file], { stdio: ['ignore', 'ignore', 'pipe'] });
}

const DICT_MODEL = `
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor, n: torch.Tensor) -> Dict[str, torch.Tensor]:
        if bool((x < 0).any()):
            raise ValueError("negative input")
        return {"count": n * 2, "mask": x > 1.5, "sum": x + n.to(torch.float32)}
`;

const dictConfig: ModelConfig = {
  name: 'dict_out', backend: 'pytorch', max_batch_size: 8,
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [2] }, { name: 'n', data_type: 'TYPE_INT64', dims: [2] }],
  output: [
    { name: 'sum', data_type: 'TYPE_FP32', dims: [2] },
    { name: 'mask', data_type: 'TYPE_BOOL', dims: [2] },
    { name: 'count', data_type: 'TYPE_INT64', dims: [2] },
  ],
  instance_group: [{ name: 'dict_out', kind: 'KIND_CPU', count: 1 }],
};

const row = (x: number[], n: number[]) => request([
  { name: 'x', datatype: 'FP32', shape: [1, 2], data: new Float32Array(x) },
  { name: 'n', datatype: 'INT64', shape: [1, 2], data: new BigInt64Array(n.map(BigInt)) },
]);

for (const { stub: torchStub, skip } of TORCH_STUBS) {
  test(`${torchStub} stub: dict outputs by name in three dtypes, only those asked for, and a raise fails its request alone`, { skip }, async () => {
    const repo = tempRepo();
    scripted(repo, 'dict_out', '', DICT_MODEL);
    const { loaded } = await loadStub(repo.dir, 'dict_out', dictConfig, 'model.pt', { torchStub });
    const inst = instance('dict_out_0');
    try {
      await loaded.executor.startInstance!(inst);
      const [a, b] = await loaded.executor.execute(inst, [row([1, 2], [3, 4]), { ...row([0.5, 5], [1, 1]), payload: { ...row([0.5, 5], [1, 1]).payload, outputs: ['mask'] } }]);
      const byName = (r: typeof a) => Object.fromEntries(r.map((t) => [t.name, { datatype: t.datatype, shape: t.shape, data: Array.from(t.data as ArrayLike<number | bigint | boolean>, (v) => Number(v)) }]));
      assert.deepEqual(byName(a), {
        sum: { datatype: 'FP32', shape: [1, 2], data: [4, 6] },
        mask: { datatype: 'BOOL', shape: [1, 2], data: [0, 1] },
        count: { datatype: 'INT64', shape: [1, 2], data: [6, 8] },
      });
      assert.deepEqual(Object.keys(byName(b)), ['mask'], 'the second request asked for mask alone');
      assert.deepEqual(byName(b).mask.data, [0, 1]);
      // the model's own error fails the batch with its message (the model manager's isolateFailures then
      // reruns the parts, a forward() being a pure function of its batch, so only the bad request fails)
      await assert.rejects(loaded.executor.execute(inst, [row([1, 1], [0, 0]), row([-1, 1], [0, 0])]), /ValueError: negative input/);
      const [after] = await loaded.executor.execute(inst, [row([2, 2], [1, 1])]);
      assert.deepEqual(Array.from(after.find((t) => t.name === 'sum')!.data as Float32Array), [3, 3], 'the stub serves on');
    } finally {
      await loaded.unload();
      repo.remove();
    }
  });

  test(`${torchStub} stub: a tuple shorter than the config's OUTPUT__n names the position`, { skip }, async () => {
    const repo = tempRepo();
    scripted(repo, 'short', '', `
class M(torch.nn.Module):
    def forward(self, x):
        return (x, x)
`);
    const config: ModelConfig = {
      name: 'short', backend: 'pytorch', max_batch_size: 4,
      input: [{ name: 'INPUT__0', data_type: 'TYPE_FP32', dims: [1] }],
      output: [{ name: 'OUTPUT__0', data_type: 'TYPE_FP32', dims: [1] }, { name: 'OUTPUT__2', data_type: 'TYPE_FP32', dims: [1] }],
      instance_group: [{ name: 'short', kind: 'KIND_CPU', count: 1 }],
    };
    const { loaded } = await loadStub(repo.dir, 'short', config, 'model.pt', { torchStub });
    const inst = instance('short_0');
    try {
      await loaded.executor.startInstance!(inst);
      await assert.rejects(
        loaded.executor.execute(inst, [request([{ name: 'INPUT__0', datatype: 'FP32', shape: [1, 1], data: new Float32Array([1]) }])]),
        /forward\(\) returned 2 outputs; output 'OUTPUT__2' wants position 2/,
      );
    } finally {
      await loaded.unload();
      repo.remove();
    }
  });

  test(`${torchStub} stub: a forward() that never returns is killed at execute_timeout_ms; the replacement serves`, { skip, timeout: 120_000 }, async () => {
    const repo = tempRepo();
    scripted(repo, 'spin', `name: "spin"
backend: "pytorch"
max_batch_size: 4
input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
parameters { key: "execute_timeout_ms" value: { string_value: "1500" } }
`, `
class M(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        while bool((x > 100).any()):
            y = torch.sin(y)
        return y
`);
    const server = await startTestServer({ modelRepositories: [repo.dir], torchStub });
    const body = (v: number) => [{ name: 'x', datatype: 'FP32', shape: [1, 1], data: [v] }];
    try {
      const hung = await inferJson(server.url, 'spin', body(1000));
      assert.equal(hung.status, 500, JSON.stringify(hung.body));
      assert.match(hung.body.error, /execute\(\) of instance spin_0_0 of model 'spin' did not return within 1500 ms \(parameter execute_timeout_ms\); its stub was killed/);
      const next = await inferJson(server.url, 'spin', body(3));
      assert.equal(next.status, 200, JSON.stringify(next.body));
      assert.deepEqual(next.body.outputs[0].data, [6]);
    } finally {
      await server.close();
      repo.remove();
    }
  });
}
