// `inferscope perf` on a generative model: genai-perf's figures through the real server (port 0) and
// tiny_lm_generate over HTTP generate_stream; the figures' definitions on hand-made records; the options
// of one kind of model refused for the other.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { perf } from '../../apps/server/src/cli/commands/perf';
import { genPerfFigures } from '../../apps/server/src/clients/generate/gen-figures';
import { syntheticAsks } from '../../apps/server/src/clients/generate/gen-workload';
import { startTestServer, tempRepository, type TestServer } from '../support/server';

let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: TestServer;

before(async () => {
  repo = await tempRepository(['tiny_lm_generate', 'mlp_classifier']);
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0 });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

test('the figures: TTFT, inter-token latency, latency and throughput by their genai-perf definitions; a failure counted, not measured', () => {
  const f = genPerfFigures([
    { sentMs: 0, tokenMs: [10, 12, 14, 16], endMs: 17, inputTokens: 5 },
    { sentMs: 5, tokenMs: [25], endMs: 25, inputTokens: 7 },
    { sentMs: 6, tokenMs: [], endMs: 8, inputTokens: 3, error: 'HTTP 400: too long' },
  ]);
  assert.equal(f.requests, 3);
  assert.equal(f.errors, 1);
  assert.equal(f.errorSample, 'HTTP 400: too long');
  assert.deepEqual([f.ttftMs!.min, f.ttftMs!.max], [10, 20]);
  assert.deepEqual([f.itlMs!.avg, f.itlMs!.p99], [2, 2], 'ITL from the request with more than one token: (16 - 10) / 3');
  assert.deepEqual([f.latencyMs!.min, f.latencyMs!.max], [17, 20]);
  assert.equal(f.outputTokens!.avg, 2.5);
  assert.equal(f.inputTokens!.max, 7);
  assert.equal(f.durationS, 0.025);
  assert.equal(f.outputTokensPerS, 5 / 0.025);
  assert.equal(f.requestsPerS, 2 / 0.025);
});

test('synthetic requests: lengths drawn around the mean, at least 1, prompt + output within max_seq_len', () => {
  const asks = syntheticAsks({ inputMean: 40, inputStddev: 30, outputMean: 200, outputStddev: 100 }, 300, 3, 256);
  for (const a of asks) {
    assert.equal(a.text.length, a.inputTokens);
    assert.ok(a.inputTokens >= 1 && a.maxTokens >= 1 && a.inputTokens + a.maxTokens <= 256);
  }
  const mean = asks.reduce((n, a) => n + a.inputTokens, 0) / asks.length;
  assert.ok(mean > 30 && mean < 50, `input mean ${mean}`);
  assert.ok(new Set(asks.map((a) => a.maxTokens)).size > 20, 'output lengths vary');
  assert.deepEqual(syntheticAsks({ inputMean: 4, inputStddev: 0, outputMean: 3, outputStddev: 0 }, 2, 1), syntheticAsks({ inputMean: 4, inputStddev: 0, outputMean: 3, outputStddev: 0 }, 2, 1), 'seeded');
});

test('perf on tiny_lm_generate streams synthetic prompts and reports the LLM metrics of every request', { timeout: 60_000 }, async () => {
  const lines: string[] = [];
  const code = await perf(['-m', 'tiny_lm_generate', '-u', server.url, '--concurrency-range', '1:3:2', '--request-count', '6',
    '--synthetic-input-tokens-mean', '9', '--output-tokens-mean', '5', '--warmup-request-count', '2'], (s) => lines.push(s), () => undefined);
  const text = lines.join('\n');
  assert.equal(code, 0, text);
  assert.match(text, /Concurrency: 1\n/);
  assert.match(text, /Concurrency: 3\n/);
  const row = (label: string) => [...text.matchAll(new RegExp(`^${label.replace(/[()]/g, '\\$&')}\\s+(.*)$`, 'gm'))].map((m) => m[1]!.trim().split(/\s+/).map(Number));
  // every request asked 5 tokens of a 9-byte prompt: the lengths are exact (avg, min, max, p99, p90, p50)
  for (const r of row('Output sequence length (tokens)')) assert.deepEqual(r, [5, 5, 5, 5, 5, 5]);
  for (const r of row('Input sequence length (tokens)')) assert.deepEqual(r, [9, 9, 9, 9, 9, 9]);
  for (const [avg, min, max] of row('Time to first token (ms)')) assert.ok(min! > 0 && min! <= avg! && avg! <= max!);
  // tokens read from one network read share a timestamp, so an inter-token latency can be 0 on a busy
  // client; it never exceeds the request's latency
  const latencies = row('Request latency (ms)');
  row('Inter token latency (ms)').forEach(([avg], i) => assert.ok(avg! >= 0 && avg! <= latencies[i]![0]!, `ITL ${avg} vs latency ${latencies[i]![0]}`));
  const tps = row('Output token throughput (per sec)').map((r) => r[0]!);
  const rps = row('Request throughput (per sec)').map((r) => r[0]!);
  assert.equal(tps.length, 2);
  tps.forEach((t, i) => assert.ok(Math.abs(t - 5 * rps[i]!) < 1e-6 * t + 0.02, 'tokens/s = 5 x requests/s'));
  assert.match(text, /Requests: 6 over [\d.]+ s, 0 failed/);
  // 2 steps x (2 warm-up + 6 measured) requests reached the model (the last one's completion is
  // recorded as its stream closes, which the client may see first: wait for it, bounded)
  const completed = () => server.events.filter((e) => e.type === 'request.completed' && e.model === 'tiny_lm_generate').length;
  for (let i = 0; i < 100 && completed() < 16; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(completed(), 16);
});

test('perf -i grpc streams the same profile over ModelStreamInfer', { timeout: 60_000 }, async () => {
  const lines: string[] = [];
  const code = await perf(['-m', 'tiny_lm_generate', '-i', 'grpc', '-u', server.grpcAddress!, '--concurrency-range', '2', '--request-count', '4',
    '--synthetic-input-tokens-mean', '6', '--output-tokens-mean', '7'], (s) => lines.push(s), () => undefined);
  const text = lines.join('\n');
  assert.equal(code, 0, text);
  assert.match(text, /gRPC ModelStreamInfer/);
  assert.match(text, /^Output sequence length \(tokens\)\s+7\.00\s+7\.00\s+7\.00/m);
  assert.match(text, /^Input sequence length \(tokens\)\s+6\.00/m);
  assert.match(text, /Requests: 4 over [\d.]+ s, 0 failed/);
});

test("perf refuses perf_analyzer's tensor options for a generative model and genai-perf's for any other", async () => {
  await assert.rejects(perf(['-m', 'tiny_lm_generate', '-u', server.url, '-b', '2'], () => undefined, () => undefined), /generative \(generate_stream\): -b\/--batch-size do not apply/);
  await assert.rejects(perf(['-m', 'mlp_classifier', '-u', server.url, '--output-tokens-mean', '8'], () => undefined, () => undefined), /--output-tokens-mean apply to a generative model .* 'mlp_classifier' is not one/);
});
