// tiny_lm_generate's step loop runs in its onnxruntime instance's worker thread (generate/step-host.ts,
// hosted through the executor's hostProgram), through the real server on port 0: the loop is there, its
// block map and KV use reach the main thread, and a worker thread that dies under running sequences fails
// each of them once while the model keeps serving on a new loop in the replacement thread.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { readTokenStream } from '@inferscope/core/util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBus, type Executor, type InferPayload, type InferResult } from '@inferscope/core';
import { RealClock } from '@inferscope/core/clock';
import { normalizeModelConfig, parseModelConfig } from '@inferscope/core/config';
import { IterativeScheduler } from '../../apps/server/src/generate/iterative-scheduler';
import { generativeModelOf } from '../../apps/server/src/generate/generative-model';
import { readOnnxSignature } from '../../apps/server/src/backends/index';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import type { ResponseStream, StreamingPayload } from '../../apps/server/src/infer/response-stream';

const MODEL = 'tiny_lm_generate';
let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: TestServer;

interface OrtExecutorView {
  workerOf(instance: string): { crash(how: 'throw' | 'exit'): void } | null;
  describe(): { instance: string; restarts: number }[];
}
type Slot = { scheduler?: unknown; loaded?: { executor: OrtExecutorView } };
const slot = (): Slot => (server.built.manager as unknown as { entries: Map<string, { versions: Map<number, Slot> }> }).entries.get(MODEL)!.versions.get(1)!;
const scheduler = () => slot().scheduler as IterativeScheduler;

before(async () => {
  repo = await tempRepository([MODEL]);
  server = await startTestServer({ modelRepositories: [repo.dir] });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

async function generate(text_input: string, max_tokens: number): Promise<string> {
  const res = await fetch(`${server.url}/v2/models/${MODEL}/generate`, { method: 'POST', body: JSON.stringify({ text_input, max_tokens }) });
  const doc = (await res.json()) as { text_output?: string; error?: string };
  assert.equal(res.status, 200, doc.error);
  return doc.text_output!;
}

test('the served model runs its step loop in the instance thread; its KV use and block map reach the main thread', { timeout: 60_000 }, async () => {
  assert.equal(scheduler().loopThread, 'instance');
  const text = await generate('hosted', 20);
  assert.equal(await generate('hosted', 20), text, 'the same prompt, the same text');
  const map = scheduler().snapshot().kv_blocks!;
  assert.ok(map.blocks.length > 0 && map.blocks.length === map.usage.totalBlocks);
  assert.equal(scheduler().kvUsage()!.usedBlocks, 0, 'every block free once the sequences ended');
  // the loop reports idle in its own turn after the last step's answer, so it may reach here after the reply
  for (let i = 0; i < 200 && scheduler().snapshot().instances?.[0]?.state !== 'idle'; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(scheduler().snapshot().instances?.[0]?.state, 'idle');
});

test('a worker thread that dies under running sequences: each fails once, the instance restarts, the next request is served by a new loop', { timeout: 60_000 }, async () => {
  const before = await generate('after the crash', 16);
  const executor = slot().loaded!.executor;
  const { instance, restarts } = executor.describe()[0]!;
  const ended = new Promise<{ tokens: number; error?: string }>((resolve, reject) => {
    const start = performance.now();
    let crashed = false;
    fetch(`${server.url}/v2/models/${MODEL}/generate_stream`, { method: 'POST', body: JSON.stringify({ text_input: 'dies midway', max_tokens: 200 }) })
      .then((res) =>
        readTokenStream(res.body!, start, () => performance.now(), () => {
          if (crashed) return;
          crashed = true; // at the first token: the thread dies in its next step
          executor.workerOf(instance)!.crash('exit');
        }),
      )
      .then((read) => resolve({ tokens: read.tokens.length, error: read.error }), reject);
  });
  const got = await ended;
  assert.ok(got.error, 'the stream ends with an error, not a final response');
  assert.match(got.error!, /generation loop stopped/);
  assert.ok(got.tokens < 200);
  assert.equal(await generate('after the crash', 16), before, 'served again, the same text, by the loop on the new thread');
  assert.equal(executor.describe()[0]!.restarts, restarts + 1);
  assert.equal(scheduler().loopThread, 'instance');
  assert.equal(scheduler().kvUsage()!.usedBlocks, 0);
});

test('where the backend cannot host the loop, it runs on the main thread, each step sent to the instance: the same text', { timeout: 60_000 }, async () => {
  const hosted = await generate('fallback loop', 24);
  const dir = join(repo.dir, MODEL);
  const config = normalizeModelConfig(parseModelConfig(readFileSync(join(dir, 'config.pbtxt'), 'utf8')), { modelName: MODEL, gpuCount: 0 });
  const generative = generativeModelOf(readOnnxSignature(join(dir, '1/model.onnx')), config);
  const ort = slot().loaded!.executor as unknown as Executor<InferPayload, InferResult>;
  // the server's own instance (already started), reached only through execute: no hostProgram
  const executor: Executor<InferPayload, InferResult> = { execute: (i, b) => ort.execute(i, b) };
  const s = new IterativeScheduler({ model: MODEL, version: '1', idPrefix: 'main:', config, generative, clock: new RealClock(), bus: new EventBus(), executor, memory: new MemoryLedger({ budgets: {} }) });
  await s.start();
  assert.equal(s.loopThread, 'main');
  const pieces: string[] = [];
  const stream: ResponseStream = {
    response: (outputs) => void (outputs && pieces.push(new TextDecoder().decode((outputs[0]!.data as Uint8Array[])[0]))),
    fail: (e) => assert.fail(e),
    single: true,
  };
  const payload: StreamingPayload = {
    inputs: [
      { name: 'text_input', datatype: 'BYTES', shape: [1], data: [new TextEncoder().encode('fallback loop')] },
      { name: 'max_tokens', datatype: 'INT32', shape: [1], data: new Int32Array([24]) },
    ],
    stream,
  };
  await s.enqueue({ batchSize: 1, shapeKey: '', payload });
  assert.deepEqual(pieces, [hosted]);
  await s.stop();
});
