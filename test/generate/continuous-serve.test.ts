// tiny_lm_generate served by continuous batching through the real server (port 0): HTTP generate_stream
// (SSE, one event per token), HTTP generate (the whole text), gRPC ModelStreamInfer (one response per
// token, the final flag on the last). Batch invariance: a prompt's tokens alone equal its tokens while
// other streams share its steps (and the steps were shared: the events show it). Cancellation frees the
// sequence and its KV blocks; every accepted request has exactly one end; bad knobs refuse the model at
// load naming the key; the KV pool is in the memory ledger, bounded by the budget.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir, cp } from 'node:fs/promises';
import { join } from 'node:path';
import type { IterEvent } from '@inferscope/core/iterative';
import { Rng } from '@inferscope/core/load';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { grpcClient, grpcGenerateAsk, type TestGrpcClient } from '../grpc/client';
import { readTokenStream } from '@inferscope/core/util';

const MODEL = 'tiny_lm_generate';
let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: TestServer;
let grpc: TestGrpcClient;

/** model name -> the parameter line its config gets instead of the bundled one */
const BROKEN: Record<string, { key: string; value: string; reason: RegExp }> = {
  bad_policy: { key: 'batch_scheduler_policy', value: 'fastest', reason: /parameter 'batch_scheduler_policy' of model 'bad_policy' must be one of guaranteed_no_evict, max_utilization, got 'fastest'/ },
  bad_tokens: { key: 'max_num_tokens', value: '-3', reason: /parameter 'max_num_tokens' of model 'bad_tokens' must be an integer >= 1/ },
  small_kv: { key: 'max_tokens_in_paged_kv_cache', value: '64', reason: /max_tokens_in_paged_kv_cache/ },
};
/** configs the loader refuses for what they declare, not for a knob */
const MISDECLARED: Record<string, { edit: (config: string) => string; reason: RegExp }> = {
  with_controls: {
    edit: (c) => c.replace('sequence_batching { iterative_sequence: true }', 'sequence_batching {\n  iterative_sequence: true\n  control_input [{ name: "START" control [{ kind: CONTROL_SEQUENCE_START int32_false_true: [0, 1] }] }]\n}'),
    reason: /sequence_batching\.control_input is the sequence batcher's and is not read with iterative_sequence/,
  },
  not_decoupled: { edit: (c) => c.replace('model_transaction_policy { decoupled: true }\n', ''), reason: /iterative_sequence needs a decoupled model/ },
  extra_input: {
    edit: (c) => c.replace('input [', 'input [\n  {\n    name: "temperature"\n    data_type: TYPE_FP32\n    dims: [ 1 ]\n  },'),
    reason: /input 'temperature' is not read by the iterative scheduler/,
  },
};

before(async () => {
  repo = await tempRepository([MODEL]);
  const config = await readFile(join(repo.dir, MODEL, 'config.pbtxt'), 'utf8');
  for (const [name, { key, value }] of Object.entries(BROKEN)) {
    await mkdir(join(repo.dir, name), { recursive: true });
    await cp(join(repo.dir, MODEL, '1'), join(repo.dir, name, '1'), { recursive: true });
    const line = new RegExp(`parameters \\{ key: "${key}" value: \\{ string_value: "[^"]*" \\} \\}`);
    assert.match(config, line);
    await writeFile(join(repo.dir, name, 'config.pbtxt'), config.replace(`name: "${MODEL}"`, `name: "${name}"`).replace(line, `parameters { key: "${key}" value: { string_value: "${value}" } }`));
  }
  for (const [name, { edit }] of Object.entries(MISDECLARED)) {
    await cp(join(repo.dir, MODEL, '1'), join(repo.dir, name, '1'), { recursive: true });
    const text = edit(config.replace(`name: "${MODEL}"`, `name: "${name}"`));
    assert.notEqual(text, config.replace(`name: "${MODEL}"`, `name: "${name}"`), name);
    await writeFile(join(repo.dir, name, 'config.pbtxt'), text);
  }
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, metricsPort: 0, memoryBudget: { cpu: 512 * 1024 * 1024 } });
  grpc = grpcClient(server.grpcAddress!);
});
after(async () => {
  grpc?.close();
  await server?.close();
  await repo?.remove();
});

interface Streamed {
  pieces: string[];
  /** ms from the request to each event */
  at: number[];
  totalMs: number;
}

async function generateStream(body: object, signal?: AbortSignal, onEvent?: () => void): Promise<Streamed> {
  const start = performance.now();
  const res = await fetch(`${server.url}/v2/models/${MODEL}/generate_stream`, { method: 'POST', body: JSON.stringify(body), signal });
  assert.equal(res.status, 200, await (res.status === 200 ? '' : res.text()));
  const read = await readTokenStream(res.body!, start, () => performance.now(), () => onEvent?.());
  assert.equal(read.error, undefined);
  const pieces = read.tokens.map((t) => t.text);
  const at = read.tokens.map((t) => t.atMs);
  return { pieces, at, totalMs: performance.now() - start };
}

const iterEvents = (from = 0): IterEvent[] => server.events.slice(from).flatMap((e) => (e.type === 'iterative' && e.model === MODEL ? [e.event as IterEvent] : []));

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(server.metricsUrl!)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels) && l.includes(`model="${MODEL}"`));
  assert.ok(line, `${name}{${labels}} in /metrics`);
  return Number(line.split(' ').at(-1));
}

/** A ModelStreamInfer request: text_input and max_tokens as raw contents (BYTES: 4-byte length, then the bytes). */
const grpcAsk = (id: string, prompt: string, maxTokens: number): object => grpcGenerateAsk(MODEL, id, prompt, maxTokens);

const PROMPTS = ['Hello, world', 'continuous batching', 'KV', 'InferScope serves tokens', 'a b c d e f'];

test('batch invariance: each prompt streams the same tokens alone as beside four others, and they shared steps', { timeout: 120_000 }, async () => {
  const alone: string[][] = [];
  for (const p of PROMPTS) alone.push((await generateStream({ text_input: p, max_tokens: 12 + p.length % 5 })).pieces);
  // not vacuous: different prompts give different texts
  assert.ok(new Set(alone.map((a) => a.join(''))).size >= 3, JSON.stringify(alone));
  const first = server.events.length;
  const together = await Promise.all(PROMPTS.map((p) => generateStream({ text_input: p, max_tokens: 12 + p.length % 5 })));
  for (let i = 0; i < PROMPTS.length; i++) assert.deepEqual(together[i]!.pieces, alone[i], PROMPTS[i]);
  const shared = iterEvents(first).filter((e) => e.type === 'step_started' && e.rows.length >= 2);
  assert.ok(shared.length > 0, 'concurrent streams shared steps');
});

test('streaming: one event per token in order, the first well before the last; generate gives the whole text; gRPC streams the same', { timeout: 60_000 }, async () => {
  const ask = { text_input: 'streaming order', max_tokens: 24 };
  const first = server.events.length;
  const s = await generateStream(ask);
  assert.equal(s.pieces.length, 24, 'one response per token (tiny_lm_generate ends only at max_tokens on this prompt)');
  for (let i = 1; i < s.at.length; i++) assert.ok(s.at[i]! >= s.at[i - 1]!);
  // TTFT < total where the responses leave the server (a loaded client may read several in one chunk)
  const sent = server.events.slice(first).flatMap((e) => (e.type === 'request.response' && e.model === MODEL ? [e] : []));
  assert.deepEqual(sent.map((r) => r.index), [...Array(24).keys()]);
  assert.deepEqual(sent.map((r) => r.final), [...Array(23).fill(false), true]);
  assert.ok(sent[0]!.t < sent[23]!.t, `first response at ${sent[0]!.t} us, last at ${sent[23]!.t} us`);
  assert.ok(s.at[0]! <= s.at.at(-1)! && s.at.at(-1)! <= s.totalMs);
  const whole = await (await fetch(`${server.url}/v2/models/${MODEL}/generate`, { method: 'POST', body: JSON.stringify(ask) })).json() as { text_output: string };
  assert.equal(whole.text_output, s.pieces.join(''));
  // "stream": true on generate answers with the last token's response only (the generate endpoint keeps the last)
  const last = await (await fetch(`${server.url}/v2/models/${MODEL}/generate`, { method: 'POST', body: JSON.stringify({ ...ask, stream: true }) })).json() as { text_output: string };
  assert.equal(last.text_output, s.pieces.at(-1));

  const stream = grpc.raw.ModelStreamInfer();
  const responses: Array<{ error_message: string; infer_response: { raw_output_contents: Buffer[]; parameters: Record<string, { bool_param?: boolean }> } }> = [];
  const done = new Promise<void>((resolve, reject) => {
    stream.on('data', (r: (typeof responses)[number]) => responses.push(r));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  stream.write({ ...grpcAsk('g1', ask.text_input, ask.max_tokens), parameters: { triton_enable_empty_final_response: { bool_param: true } } });
  stream.end();
  await done;
  assert.equal(responses.length, 24);
  assert.ok(responses.every((r) => r.error_message === ''));
  const texts = responses.map((r) => Buffer.from(r.infer_response.raw_output_contents[0]!).subarray(4).toString('utf8'));
  assert.deepEqual(texts, s.pieces);
  assert.deepEqual(responses.map((r) => r.infer_response.parameters.triton_final_response?.bool_param ?? false), [...Array(23).fill(false), true]);
});

test('a client that goes away: its sequence is cancelled and its KV blocks freed at the next step; serving goes on', { timeout: 60_000 }, async () => {
  const first = server.events.length;
  const controller = new AbortController();
  let seen = 0;
  await assert.rejects(generateStream({ text_input: 'cancel me', max_tokens: 240 }, controller.signal, () => {
    if (++seen === 2) controller.abort();
  }));
  const ended = () => iterEvents().filter((e) => e.type === 'seq_finished');
  for (let i = 0; i < 200 && !iterEvents(first).some((e) => e.type === 'idle'); i++) await new Promise((r) => setTimeout(r, 25));
  const mine = iterEvents(first).flatMap((e) => (e.type === 'seq_finished' ? [e] : []));
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.outcome, 'cancelled');
  assert.ok(mine[0]!.tokens < 240);
  assert.equal(await metric('nv_trt_llm_kv_cache_block_metrics', 'kv_cache_block_type="used"'), 0);
  // the server still serves
  assert.equal((await generateStream({ text_input: 'after', max_tokens: 3 })).pieces.length, 3);
  assert.ok(ended().length > 0);
});

test('a gRPC stream cancelled mid-generation cancels its sequence; its blocks are freed', { timeout: 60_000 }, async () => {
  const first = server.events.length;
  const stream = grpc.raw.ModelStreamInfer();
  let got = 0;
  const ended = new Promise<void>((resolve) => {
    stream.on('data', () => {
      if (++got === 2) stream.cancel();
    });
    stream.on('error', () => resolve());
    stream.on('end', () => resolve());
  });
  stream.write(grpcAsk('c1', 'grpc cancel', 240));
  await ended;
  for (let i = 0; i < 200 && !iterEvents(first).some((e) => e.type === 'idle'); i++) await new Promise((r) => setTimeout(r, 25));
  const mine = iterEvents(first).flatMap((e) => (e.type === 'seq_finished' ? [e] : []));
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.outcome, 'cancelled');
  assert.equal(await metric('nv_trt_llm_kv_cache_block_metrics', 'kv_cache_block_type="used"'), 0);
});

test('the model list carries the KV block map (owner and fill of each block) for the dashboard: filled while a sequence runs, free after', { timeout: 60_000 }, async () => {
  const row = () => server.built.manager.list().find((m) => m.name === MODEL)!;
  // read at every step the loop reports: the main thread holds the block tables of the step before, so a
  // step's report sees the blocks of a running sequence whatever the timing (a timer may not fire while
  // a burst of the worker's messages is drained)
  let during: NonNullable<ReturnType<typeof row>['kv_blocks']> | undefined;
  const off = server.built.bus.on((e) => {
    if (e.type !== 'iterative' || e.model !== MODEL || (e.event as IterEvent).type !== 'step_started') return;
    const map = row().kv_blocks;
    if (map && map.usage.usedBlocks > (during?.usage.usedBlocks ?? 0)) during = map;
  });
  try {
    await generateStream({ text_input: 'block map', max_tokens: 40 });
  } finally {
    off();
  }
  assert.ok(during, 'a block map while it ran');
  const owned = during.blocks.filter((b) => b.owner !== null);
  assert.ok(owned.length >= 2 && owned.every((b) => b.tokens > 0 && b.tokens <= during!.blockTokens), JSON.stringify(owned));
  assert.equal(during.usage.usedBlocks, owned.length);
  for (let i = 0; i < 200 && row().kv_blocks!.usage.usedBlocks > 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(row().kv_blocks!.blocks.every((b) => b.owner === null));
});

test('every accepted request ends once; statistics count requests and step executions; KV blocks all free, the pool in the memory ledger', { timeout: 60_000 }, async () => {
  const ends = new Map<string, number>();
  const queued = new Set<string>();
  for (const e of server.events) {
    if (!('model' in e) || e.model !== MODEL) continue;
    if (e.type === 'request.queued') queued.add(e.request_id);
    if (e.type === 'request.completed' || (e.type === 'request.rejected' && e.queued_us !== undefined)) ends.set(e.request_id, (ends.get(e.request_id) ?? 0) + 1);
  }
  assert.ok(queued.size >= 12);
  for (const id of queued) assert.equal(ends.get(id), 1, id);
  const stats = await (await fetch(`${server.url}/v2/models/${MODEL}/stats`)).json() as { model_stats: { inference_count: number; execution_count: number; inference_stats: { success: { count: number }; fail: { count: number } } }[] };
  const s = stats.model_stats[0]!;
  assert.equal(s.inference_stats.success.count + s.inference_stats.fail.count, queued.size);
  assert.ok(s.execution_count > s.inference_count, 'a step is an execution: many per request');
  assert.equal(await metric('nv_trt_llm_kv_cache_block_metrics', 'kv_cache_block_type="used"'), 0);
  const maxBlocks = await metric('nv_trt_llm_kv_cache_block_metrics', 'kv_cache_block_type="max"');
  // max_tokens_in_paged_kv_cache 4096 / tokens_per_block 16, the smaller limit under a 512 MiB budget
  assert.equal(maxBlocks, 256);
  const pool = await metric('inferscope_instance_memory_bytes', 'instance="kv_cache"');
  assert.equal(pool, 256 * 16 * 1024, 'blocks x 16 tokens x 1 KiB (2 layers x K,V x 4 heads x 16 x FP32)');
});

test('bad requests are refused with the reason and lose nothing; the unary infer endpoint refuses a decoupled model as Triton does', async () => {
  for (const [body, reason] of [
    [{ text_input: 'x', max_tokens: 0 }, /'max_tokens' of model 'tiny_lm_generate' must be between 1 and 255/],
    [{ text_input: 'x', max_tokens: 100000 }, /must be between 1 and 255/],
    [{ text_input: '' }, /is empty/],
    [{ text_input: 'x'.repeat(300) }, /leaves no room to generate/],
  ] as const) {
    const res = await fetch(`${server.url}/v2/models/${MODEL}/generate_stream`, { method: 'POST', body: JSON.stringify(body) });
    const text = await res.text();
    assert.match(text, reason, text);
  }
  const res = await fetch(`${server.url}/v2/models/${MODEL}/infer`, { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['x'] }] }) });
  assert.equal(res.status, 501);
  assert.match(await res.text(), /doesn't support models with decoupled transaction policy/);
  assert.equal((await generateStream({ text_input: 'still fine', max_tokens: 2 })).pieces.length, 2);
});

test('random generate requests (any text, any max_tokens, stream or not) are answered 200 or 400 with a reason, never lost; the model keeps serving', { timeout: 60_000 }, async () => {
  const rng = new Rng(7);
  const alphabet = ['a', 'Z', ' ', '0', 'é', '中', '😀', '\n', '"'];
  const outcomes = await Promise.all(Array.from({ length: 24 }, async () => {
    const text = Array.from({ length: rng.int(0, 90) }, () => alphabet[rng.int(0, alphabet.length - 1)]).join('');
    const body: Record<string, unknown> = { text_input: text };
    if (rng.next() < 0.8) body.max_tokens = [rng.int(-5, 40), 2 ** 31 - 1, 0][rng.int(0, 2)];
    if (rng.next() < 0.5) body.stream = rng.next() < 0.5;
    const res = await fetch(`${server.url}/v2/models/${MODEL}/${rng.next() < 0.5 ? 'generate' : 'generate_stream'}`, { method: 'POST', body: JSON.stringify(body) });
    const answer = await res.text();
    assert.ok(res.status === 200 || (res.status === 400 && /"error"/.test(answer)), `${res.status} ${answer}`);
    return res.status;
  }));
  assert.ok(outcomes.includes(200) && outcomes.includes(400), String(outcomes));
  assert.equal((await generateStream({ text_input: 'still serving', max_tokens: 2 })).pieces.length, 2);
});

test('a bad TensorRT-LLM knob, a KV cache below one sequence, a sequence-batcher field, a non-decoupled model or an input it does not read refuses the model at load, naming it', async () => {
  const index = await (await fetch(`${server.url}/v2/repository/index`, { method: 'POST', body: '{}' })).json() as { name: string; state: string; reason?: string }[];
  assert.equal(index.find((m) => m.name === MODEL)?.state, 'READY');
  for (const [name, { reason }] of [...Object.entries(BROKEN), ...Object.entries(MISDECLARED)]) {
    const entry = index.find((m) => m.name === name);
    assert.equal(entry?.state, 'UNAVAILABLE', name);
    assert.match(entry!.reason ?? '', reason, name);
  }
});
