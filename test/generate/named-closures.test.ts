// A generative request's work on the server's main thread makes no named closure per request or per
// token (test/support/named-closures.ts says why that costs): HTTP generate_stream and generate, and gRPC
// ModelStreamInfer, on tiny_lm_generate through the real server on port 0, its step loop in the
// instance's thread. A first round warms every path up; a second, equal round must name nothing.
import { namedSoFar } from '../support/named-closures';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { streamTokens } from '../support/generate-stream';
import { grpcClient, grpcGenerateAsk, streamInferAll, type TestGrpcClient } from '../grpc/client';

const MODEL = 'tiny_lm_generate';
let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: TestServer;
let grpc: TestGrpcClient;

before(async () => {
  repo = await tempRepository([MODEL]);
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0 });
  grpc = grpcClient(server.grpcAddress!);
});
after(async () => {
  grpc?.close();
  await server?.close();
  await repo?.remove();
});

async function round(r: number): Promise<void> {
  const streams = await Promise.all([0, 1, 2, 3].map((i) => streamTokens(server.url, MODEL, `round ${r} stream ${i}`, 12)));
  assert.deepEqual(streams, [12, 12, 12, 12]);
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${server.url}/v2/models/${MODEL}/generate`, { method: 'POST', body: JSON.stringify({ text_input: `round ${r} whole ${i}`, max_tokens: 12 }) });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  const answers = await streamInferAll(grpc, [0, 1, 2].map((i) => grpcGenerateAsk(MODEL, `r${r}-${i}`, `round ${r} grpc ${i}`, 12)));
  assert.equal(answers.length, 36);
  assert.ok(answers.every((m) => m.error_message === ''));
}

test('a round of generate_stream, generate and gRPC streamed generation names no closure on the main thread', { timeout: 60_000 }, async () => {
  await round(1);
  const before = namedSoFar();
  await round(2);
  assert.equal(namedSoFar() - before, 0, 'functions named while 9 generations (108 tokens) went through');
});
