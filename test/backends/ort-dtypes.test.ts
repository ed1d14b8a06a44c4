import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, type KServeDatatype, type Tensor } from '@inferscope/core';
import { kserveToTritonDatatype, type ModelConfig } from '@inferscope/core/config';
import { allocateData, toOrtType } from '@inferscope/core/tensor/dtypes.ts';
import { GraphBuilder, type ElemType } from '../../apps/server/src/model-generator/onnx-builder';
import { onnxRuntimeBackend } from '../../apps/server/src/backends/onnxruntime/backend';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import { instance, request } from './fixtures';

const TYPES: KServeDatatype[] = ['BOOL', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'INT8', 'INT16', 'INT32', 'INT64', 'FP16', 'FP32', 'FP64'];

test('every numeric datatype goes through a batched Identity model and comes back bit-exact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'inferscope-dtypes-'));
  try {
    // One model with an Identity per datatype: inputs in_<T> [batch, 3] -> outputs out_<T>.
    const g = new GraphBuilder('identity_all');
    for (const d of TYPES) {
      const t = toOrtType(d) as ElemType;
      g.input(`in_${d}`, t, ['batch', 3]);
      g.node('Identity', [`in_${d}`], {}, `out_${d}`);
      g.output(`out_${d}`, t, ['batch', 3]);
    }
    mkdirSync(join(dir, 'identity_all', '1'), { recursive: true });
    const file = join(dir, 'identity_all', '1', 'model.onnx');
    writeFileSync(file, g.encode('dtype round trip'));
    const config: ModelConfig = {
      name: 'identity_all',
      backend: 'onnxruntime',
      max_batch_size: 8,
      input: TYPES.map((d) => ({ name: `in_${d}`, data_type: kserveToTritonDatatype(d), dims: [3] })),
      output: TYPES.map((d) => ({ name: `out_${d}`, data_type: kserveToTritonDatatype(d), dims: [3] })),
      instance_group: [{ name: 'identity_all_0', kind: 'KIND_CPU', count: 1 }],
    };
    const loaded = await onnxRuntimeBackend.load({
      model: 'identity_all', version: '1', versionDir: join(dir, 'identity_all', '1'), modelFile: file, config,
      gpuCount: 0, log: () => {}, memory: new MemoryLedger({ bus: new EventBus() }),
    });
    const inst = instance('identity_all_0_0');
    await loaded.executor.startInstance!(inst);
    try {
      const make = (rows: number, salt: number): Tensor[] =>
        TYPES.map((d) => {
          const data = allocateData(d, rows * 3);
          for (let i = 0; i < data.length; i++) {
            const v = d === 'BOOL' ? (i + salt) % 2 : d === 'FP16' ? 0x3c00 + i + salt : i + salt * 10 + 1;
            (data as unknown as { [k: number]: number | bigint })[i] = d === 'INT64' || d === 'UINT64' ? BigInt(v) : v;
          }
          return { name: `in_${d}`, datatype: d, shape: [rows, 3], data };
        });
      const a = make(1, 1);
      const b = make(2, 2);
      const [ra, rb] = await loaded.executor.execute(inst, [request(a), request(b)]);
      for (const [sent, got] of [[a, ra], [b, rb]] as const) {
        assert.equal(got.length, TYPES.length);
        TYPES.forEach((d, k) => {
          assert.equal(got[k].name, `out_${d}`);
          assert.equal(got[k].datatype, d);
          assert.deepEqual(got[k].shape, sent[k].shape);
          assert.deepEqual([...(got[k].data as ArrayLike<unknown> as number[])], [...(sent[k].data as ArrayLike<unknown> as number[])], d);
        });
      }
    } finally {
      await loaded.unload();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
