/**
 * Tensors through system shared memory, as `perf_analyzer --shared-memory system` and tritonclient's
 * shm utilities use it: a second process writes the input into a /dev/shm object, the client registers
 * input and output regions, names them in the request, and reads the answer from the output region.
 * Over HTTP and gRPC; the answer equals the same request sent with its data inline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { startTestServer } from '../support/server.ts';
import { grpcClient } from '../grpc/client.ts';

const MODEL = 'mlp_classifier';
const IN = `/inferscope_in_${process.pid}`;
const OUT = `/inferscope_out_${process.pid}`;
const features = Float32Array.from({ length: 784 }, (_, i) => (i % 7) / 7);

test('inputs read from and outputs written to registered shared memory, HTTP and gRPC', { skip: existsSync('/dev/shm') ? false : 'no /dev/shm', timeout: 120_000 }, async () => {
  // The client side, in another process: input at offset 64 of a 4 KiB object, a zeroed output object.
  execFileSync(process.execPath, ['-e', `
    const fs = require('fs');
    const inBuf = Buffer.alloc(64 + 784 * 4);
    Buffer.from(new Float32Array(${JSON.stringify([...features])}).buffer).copy(inBuf, 64);
    fs.writeFileSync('/dev/shm${IN}', inBuf);
    fs.writeFileSync('/dev/shm${OUT}', Buffer.alloc(256));`]);
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], grpcPort: 0 });
  const app = server.built.app;
  const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });
  const grpc = grpcClient(server.grpcAddress!);
  try {
    assert.equal((await post('/v2/systemsharedmemory/region/input/register', { key: IN, offset: 64, byte_size: 784 * 4 })).statusCode, 200);
    assert.equal((await post('/v2/systemsharedmemory/region/output/register', { key: OUT, offset: 0, byte_size: 256 })).statusCode, 200);
    assert.ok((await app.inject({ url: '/v2' })).json().extensions.includes('system_shared_memory'));

    const inline = (await post(`/v2/models/${MODEL}/versions/1/infer`, { inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: [...features] }] })).json();
    const expected: number[] = inline.outputs[0].data;

    const res = await post(`/v2/models/${MODEL}/versions/1/infer`, {
      inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { shared_memory_region: 'input', shared_memory_byte_size: 784 * 4 } }],
      outputs: [{ name: 'probabilities', parameters: { shared_memory_region: 'output', shared_memory_byte_size: 40, shared_memory_offset: 16 } }],
    });
    assert.equal(res.statusCode, 200, res.body);
    const out = res.json().outputs[0];
    assert.equal(out.data, undefined, 'no data in the body for a shared-memory output');
    assert.deepEqual(out.parameters, { shared_memory_region: 'output', shared_memory_byte_size: 40, shared_memory_offset: 16 });
    const region = readFileSync(`/dev/shm${OUT}`);
    const got = [...new Float32Array(new Uint8Array(region.subarray(16, 56)).buffer)];
    got.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-6, `output ${i}`));

    // Refusals: an unknown region, a window past the region, an output region too small.
    const bad = async (params: object, where: 'input' | 'output') => {
      const input = { name: 'input', datatype: 'FP32', shape: [1, 784], ...(where === 'input' ? { parameters: params } : { data: [...features] }) };
      const r = await post(`/v2/models/${MODEL}/versions/1/infer`, { inputs: [input], ...(where === 'output' ? { outputs: [{ name: 'probabilities', parameters: params }] } : {}) });
      assert.equal(r.statusCode, 400, r.body);
      return r.json().error as string;
    };
    assert.match(await bad({ shared_memory_region: 'nope', shared_memory_byte_size: 3136 }, 'input'), /Unable to find system shared memory region: 'nope'/);
    assert.match(await bad({ shared_memory_region: 'input', shared_memory_byte_size: 3136, shared_memory_offset: 8 }, 'input'), /Invalid offset \+ byte size/);
    assert.match(await bad({ shared_memory_region: 'input' }, 'input'), /'shared_memory_byte_size' is missing/);
    assert.match(await bad({ shared_memory_region: 'output', shared_memory_byte_size: 8 }, 'output'), /should be at least 40 bytes/);

    // gRPC: the same parameters as InferParameter values.
    const g = await grpc.call('ModelInfer', {
      model_name: MODEL, model_version: '1',
      inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { shared_memory_region: { string_param: 'input' }, shared_memory_byte_size: { int64_param: 784 * 4 } } }],
      outputs: [{ name: 'probabilities', parameters: { shared_memory_region: { string_param: 'output' }, shared_memory_byte_size: { int64_param: 40 } } }],
    });
    assert.equal(g.raw_output_contents[0].length, 0, 'no raw contents for a shared-memory output');
    const viaGrpc = [...new Float32Array(new Uint8Array(readFileSync(`/dev/shm${OUT}`).subarray(0, 40)).buffer)];
    viaGrpc.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-6, `gRPC output ${i}`));
  } finally {
    grpc.close();
    await server.close();
    rmSync(`/dev/shm${IN}`, { force: true });
    rmSync(`/dev/shm${OUT}`, { force: true });
  }
});
