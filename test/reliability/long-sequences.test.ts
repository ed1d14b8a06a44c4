/**
 * Long sequences (issue 28, and the one check the first round left open): a 2,000,000-token request to
 * text_encoder is 16 MB of token ids, within every body limit, but its Gather makes a 64-float row per
 * token (~512 MB) and it passed the memory budget. A request's memory while it runs (inputs, outputs and
 * the model's intermediates, memory/request-cost.ts) is now estimated before it is queued: past what
 * --memory-budget leaves free, or past --max-inflight-bytes as a whole, it is refused with 400 and the
 * reason (HTTP and gRPC); otherwise it is charged to --max-inflight-bytes, so long requests at once are
 * bounded as large bodies are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status, type ServiceError } from '@grpc/grpc-js';
import { startTestServer } from '../support/server.ts';
import { grpcClient } from '../grpc/client.ts';
import { MiB } from './harness.ts';

const MODEL = 'text_encoder';

/** A binary-extension body of `tokens` INT64 token ids (batch 1), and the same as a gRPC message. */
function tokens(n: number) {
  const ids = Buffer.alloc(n * 8); // id 0 everywhere: in the vocabulary
  const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, n], parameters: { binary_data_size: ids.byteLength } }] }));
  return {
    http: { method: 'POST' as const, url: `/v2/models/${MODEL}/infer`, headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) }, payload: Buffer.concat([header, ids]) },
    grpc: { model_name: MODEL, inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, n] }], raw_input_contents: [ids] },
  };
}

test('a request whose intermediates would pass the memory budget is refused up front, HTTP and gRPC', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], memoryBudget: { cpu: 256 * MiB }, grpcPort: 0, live: false, gpuCount: 0 });
  const client = grpcClient(server.grpcAddress!);
  try {
    const long = tokens(2_000_000);
    const res = await server.built.app.inject(long.http);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error, /request for model 'text_encoder' would need \d+\.\d MiB while it runs .*more than the \d+\.\d MiB the memory budget leaves free on cpu \(--memory-budget 256\.0 MiB\)/);
    await assert.rejects(client.call('ModelInfer', long.grpc), (e: ServiceError) => e.code === status.INVALID_ARGUMENT && /memory budget/.test(e.details));
    assert.ok(!server.events.some((e) => e.type === 'request.queued' && e.model === MODEL), 'nothing was queued');
    // an ordinary sequence is served as before
    const short = await server.built.app.inject(tokens(1000).http);
    assert.equal(short.statusCode, 200, short.body);
    await client.call('ModelInfer', tokens(1000).grpc);
  } finally {
    client.close();
    await server.close();
  }
});

test('without a memory budget, a request\'s intermediates count against --max-inflight-bytes', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], maxInflightBytes: 64 * MiB, live: false, gpuCount: 0 });
  try {
    // 300,000 tokens: a 2.4 MB body, but ~77 MB while it runs: more than the whole limit
    const res = await server.built.app.inject(tokens(300_000).http);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error, /would need \d+\.\d MiB while it runs .*more than the 64\.0 MiB --max-inflight-bytes allows/);
    // 100,000 tokens (~26 MB while it runs) fit, and are served
    const ok = await server.built.app.inject(tokens(100_000).http);
    assert.equal(ok.statusCode, 200, ok.body);
  } finally {
    await server.close();
  }
});
