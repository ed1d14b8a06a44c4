// The server's per-request work on its main thread makes no named closure (test/support/named-closures.ts
// says why that costs): HTTP JSON and binary infer, a response-cache hit and miss, gRPC ModelInfer and a
// ModelStreamInfer stream, through the real server on port 0. A first round warms every path up; a second,
// equal round must name nothing. The client's code in the loops names nothing either (inline arrows).
import { namedSoFar } from '../support/named-closures';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { grpcClient, rawFp32, streamInferAll, type TestGrpcClient } from '../grpc/client';

let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: TestServer;
let grpc: TestGrpcClient;

before(async () => {
  repo = await tempRepository(['mlp_classifier']);
  const config = join(repo.dir, 'mlp_classifier', 'config.pbtxt');
  await writeFile(config, `${await readFile(config, 'utf8')}\nresponse_cache { enable: true }\n`);
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, responseCache: { size: 1 << 20 } });
  grpc = grpcClient(server.grpcAddress!);
});
after(async () => {
  grpc?.close();
  await server?.close();
  await repo?.remove();
});

const N = 12;
const url = () => `${server.url}/v2/models/mlp_classifier/infer`;
const json = (v: number) => JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: new Array(784).fill(v) }] });

/** one round: every path N times; values differ by round, so each round's first request of a value misses the cache */
async function round(r: number): Promise<void> {
  for (let i = 0; i < N; i++) {
    const res = await fetch(url(), { method: 'POST', body: json(r + (i % 3) / 10) }); // three values: misses, then hits
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  const header = JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: 784 * 4 } }] });
  for (let i = 0; i < N; i++) {
    const body = Buffer.concat([Buffer.from(header), rawFp32(new Float32Array(784).fill(r + i))]);
    const res = await fetch(url(), { method: 'POST', body, headers: { 'inference-header-content-length': String(header.length) } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  const ask = (i: number) => ({ model_name: 'mlp_classifier', id: `r${r}-${i}`, inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784] }], raw_input_contents: [rawFp32(new Float32Array(784).fill(r - i))] });
  for (let i = 0; i < N; i++) await grpc.call('ModelInfer', ask(i));
  const answers = await streamInferAll(grpc, Array.from({ length: N }, (_, i) => ask(100 + i)));
  assert.equal(answers.length, N);
  assert.ok(answers.every((m) => m.error_message === ''));
}

test('a round of HTTP JSON and binary, cache hits and misses, gRPC unary and streamed requests names no closure on the main thread', { timeout: 60_000 }, async () => {
  await round(1);
  const before = namedSoFar();
  await round(2);
  assert.equal(namedSoFar() - before, 0, `functions named while ${4 * N} requests went through`);
});
