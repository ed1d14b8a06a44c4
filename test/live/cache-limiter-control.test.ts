/**
 * Live Controls for the response cache and the rate limiter (issue 54), through the real server's control
 * channel: the cache switched on and off per model (hits follow the switch), resource counts and
 * priorities changed live, and every refusal in words (no cache on a sequence model, a count below a need
 * in Triton's words, an unknown model or resource, malformed messages).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import type { ControlAckOf } from '@inferscope/core';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';
import { connectSocket } from '../support/socket.ts';
import { control } from './fake-server.ts';

const config = (name: string, extra: string) => `name: "${name}"
backend: "onnxruntime"
max_batch_size: 8
input [{ name: "input" data_type: TYPE_FP32 dims: [784] }]
output [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]
${extra}
`;
const limited = (need: number) => `dynamic_batching { }\ninstance_group [{ count: 1 kind: KIND_CPU rate_limiter { resources [{ name: "acc" global: true count: ${need} }] } }]`;
const MODELS: Record<string, string> = { m: limited(1), n: limited(2), seq: 'sequence_batching { }' };

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };
let socket: Socket;
before(async () => {
  repo = await tempRepository([]);
  const onnx = await readFile(new URL('../../model_repository/mlp_classifier/1/model.onnx', import.meta.url));
  for (const [name, extra] of Object.entries(MODELS)) {
    await mkdir(join(repo.dir, name, '1'), { recursive: true });
    await writeFile(join(repo.dir, name, 'config.pbtxt'), config(name, extra));
    await writeFile(join(repo.dir, name, '1', 'model.onnx'), onnx);
  }
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: null, responseCache: { size: 1 << 20 }, rateLimit: 'execution_count' });
  socket = await connectSocket(server.url);
});
after(async () => {
  socket?.close();
  await server?.close();
  await repo?.remove();
});

const data = Array.from({ length: 784 }, (_, i) => (i % 13) / 13);
async function infer(model: string): Promise<number[]> {
  const res = await fetch(`${server.url}/v2/models/${model}/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data }] }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { outputs: { data: number[] }[] }).outputs[0].data;
}
async function counts(model: string): Promise<{ hits: number; misses: number; executions: number }> {
  const s = ((await (await fetch(`${server.url}/v2/models/${model}/stats`)).json()) as { model_stats: { execution_count: number; inference_stats: Record<string, { count: number }> }[] }).model_stats[0];
  return { hits: s.inference_stats.cache_hit.count, misses: s.inference_stats.cache_miss.count, executions: s.execution_count };
}

test('the cache switched on for a model answers repeats from the cache; switched off, every request runs', async () => {
  const first = await infer('m');
  assert.deepEqual(await counts('m'), { hits: 0, misses: 0, executions: 1 }, 'the config does not enable the cache');
  const on = await control<ControlAckOf<'setResponseCache'>>(socket, { action: 'setResponseCache', model: 'm', enabled: true });
  assert.deepEqual(on, { ok: true, changes: [{ path: 'response_cache.enable', old: false, new: true }] });
  await infer('m');
  assert.deepEqual(await infer('m'), first, 'a hit answers what the model answered');
  assert.deepEqual(await counts('m'), { hits: 1, misses: 1, executions: 2 });
  const again = await control<ControlAckOf<'setResponseCache'>>(socket, { action: 'setResponseCache', model: 'm', version: 1, enabled: true });
  assert.deepEqual(again, { ok: true, changes: [] }, 'already on: nothing changes');
  const off = await control<ControlAckOf<'setResponseCache'>>(socket, { action: 'setResponseCache', model: 'm', enabled: false });
  assert.equal(off.ok, true);
  await infer('m');
  assert.deepEqual(await counts('m'), { hits: 1, misses: 1, executions: 3 });
});

test('the cache is refused for a sequence model in Triton\'s words, and for a model not loaded', async () => {
  const seq = await control<ControlAckOf<'setResponseCache'>>(socket, { action: 'setResponseCache', model: 'seq', enabled: true });
  assert.equal(seq.ok, false);
  assert.match(String(!seq.ok && seq.error), /Response Cache does not currently support model seq with sequence batching scheduler/);
  const none = await control<ControlAckOf<'setResponseCache'>>(socket, { action: 'setResponseCache', model: 'ghost', enabled: true });
  assert.equal(none.ok, false);
  assert.match(String(!none.ok && none.error), /ghost/);
});

test('a resource count changes live; below a need it is refused in Triton\'s words and stays', async () => {
  const low = await control<ControlAckOf<'setResourceCount'>>(socket, { action: 'setResourceCount', resource: 'acc', count: 1 });
  assert.equal(low.ok, false);
  assert.equal(!low.ok && low.error, 'Resource count for "acc" is limited to 1 which will prevent scheduling of one or more model instances, the minimum required count is 2');
  const up = await control<ControlAckOf<'setResourceCount'>>(socket, { action: 'setResourceCount', resource: 'acc', count: 3 });
  assert.equal(up.ok, true, JSON.stringify(up));
  assert.deepEqual(up.ok && up.rate_limiter.resources.map((r) => [r.scope, r.name, r.count]), [['GLOBAL', 'acc', 3]]);
  // both models still answer under the new count
  await infer('m');
  await infer('n');
  const unknown = await control<ControlAckOf<'setResourceCount'>>(socket, { action: 'setResourceCount', resource: 'gpu_mem', count: 3 });
  assert.match(String(!unknown.ok && unknown.error), /no loaded instance needs a resource "gpu_mem"/);
});

test('a model\'s rate-limiter priority changes live and shows in the limiter', async () => {
  const ack = await control<ControlAckOf<'setRateLimitPriority'>>(socket, { action: 'setRateLimitPriority', model: 'n', priority: 4 });
  assert.equal(ack.ok, true, JSON.stringify(ack));
  assert.equal(ack.ok && ack.instances, 1);
  assert.deepEqual(ack.ok && ack.rate_limiter.instances.filter((i) => i.model === 'n').map((i) => i.priority), [4]);
  const ghost = await control<ControlAckOf<'setRateLimitPriority'>>(socket, { action: 'setRateLimitPriority', model: 'ghost', priority: 2 });
  assert.match(String(!ghost.ok && ghost.error), /model 'ghost' has no instance the rate limiter knows/);
});

test('malformed cache and limiter messages are refused before anything runs', async () => {
  const cases: [unknown, RegExp][] = [
    [{ action: 'setResourceCount', resource: 'a:b', count: 1 }, /resource name/],
    [{ action: 'setResourceCount', resource: 'acc', count: -1 }, /count/],
    [{ action: 'setResourceCount', resource: 'acc', count: 1.5 }, /count/],
    [{ action: 'setRateLimitPriority', model: 'n', priority: 0 }, /priority/],
    [{ action: 'setResponseCache', model: 'm', enabled: 'yes' }, /enabled/],
    [{ action: 'setResponseCache', model: 'm', enabled: true, extra: 1 }, /extra/],
  ];
  for (const [msg, words] of cases) {
    const ack = await control<{ ok: boolean; error?: string }>(socket, msg);
    assert.equal(ack.ok, false, JSON.stringify(msg));
    assert.match(String(ack.error), words, JSON.stringify(msg));
  }
});

test('a cache switched on live is what saveConfig writes back', async () => {
  const on = await control<ControlAckOf<'setResponseCache'>>(socket, { action: 'setResponseCache', model: 'n', enabled: true });
  assert.equal(on.ok, true, JSON.stringify(on));
  const saved = await control<ControlAckOf<'saveConfig'>>(socket, { action: 'saveConfig', model: 'n', dryRun: true });
  assert.equal(saved.ok, true, JSON.stringify(saved));
  assert.match(saved.ok ? saved.text : '', /response_cache \{\s*enable: true\s*\}/);
  assert.deepEqual(saved.ok && saved.changed, ['response_cache.enable']);
});
