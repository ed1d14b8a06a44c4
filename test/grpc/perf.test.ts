// `inferscope perf -i grpc` against the real server's gRPC endpoint (port 0): steps run, the server's queue
// and compute figures come from the ModelStatistics RPC, and errors name the model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server';
import { perf } from '../../apps/server/src/cli/commands/perf';

let server: TestServer;
before(async () => {
  server = await startTestServer({ grpcPort: 0, live: false });
});
after(async () => server?.close());

test('perf -i grpc measures concurrency steps with server statistics from gRPC', async () => {
  const lines: string[] = [];
  const before = server.events.filter((e) => e.type === 'request.queued' && e.protocol === 'grpc').length;
  const code = await perf(
    ['-i', 'grpc', '-m', 'mlp_classifier', '-u', server.grpcAddress!, '--concurrency-range', '1:2:1', '--measurement-interval', '300', '--max-trials', '3'],
    (x) => lines.push(x),
    () => {},
  );
  const text = lines.join('\n');
  assert.equal(code, 0, text);
  assert.match(text, /KServe v2 over gRPC/);
  assert.match(text, /Request concurrency: 2/);
  assert.match(text, /Avg request latency: \d+ usec \(overhead \d+ usec \+ queue \d+ usec \+ compute/);
  const grpcQueued = server.events.filter((e) => e.type === 'request.queued' && e.protocol === 'grpc').length - before;
  assert.ok(grpcQueued > 10, `the load went through gRPC (${grpcQueued} requests)`);
  await assert.rejects(perf(['-i', 'grpc', '-m', 'nope', '-u', server.grpcAddress!], () => {}, () => {}), /nope/);
  await assert.rejects(perf(['-i', 'smoke', '-m', 'x'], () => {}, () => {}), /must be http or grpc/);
});
