// tiny_lm_generate's knobs changed live through the real server (port 0) while generate_stream traffic
// flows: max_num_sequences, max_num_tokens and enable_chunked_context in place, batch_scheduler_policy and
// max_tokens_in_paged_kv_cache by a new planner that takes over every sequence (running ones recomputed).
// Every request gets exactly one complete answer, each prompt the tokens it has alone; the ledger's
// kv_cache entry follows the KV budget; a bad value is refused with its reason and changes nothing; the
// saved config.pbtxt carries the live parameters.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import type { IterEvent } from '@inferscope/core/iterative';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { connectSocket } from '../support/socket';
import { readTokenStream } from '../../apps/web/src/teach/token-stream';

const MODEL = 'tiny_lm_generate';
let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: TestServer;
let socket: Socket;

before(async () => {
  repo = await tempRepository([MODEL]);
  server = await startTestServer({ modelRepositories: [repo.dir], memoryBudget: { cpu: 512 * 1024 * 1024 } });
  socket = await connectSocket(server.url);
});
after(async () => {
  socket?.close();
  await server?.close();
  await repo?.remove();
});

type Ack = { ok: boolean; error?: string; code?: string; changes?: { path: string; old: unknown; new: unknown }[] };
const control = (msg: object) => socket.timeout(30_000).emitWithAck('control', { action: 'setIterativeKnobs', model: MODEL, ...msg }) as Promise<Ack>;

/** One generate_stream request: its text pieces, or why it did not end well. */
async function generateStream(text_input: string, max_tokens: number): Promise<string[]> {
  const res = await fetch(`${server.url}/v2/models/${MODEL}/generate_stream`, { method: 'POST', body: JSON.stringify({ text_input, max_tokens }) });
  assert.equal(res.status, 200, await (res.status === 200 ? '' : res.text()));
  const read = await readTokenStream(res.body!, 0, () => 0, () => {});
  assert.equal(read.error, undefined, `${text_input}: ${read.error}`);
  return read.tokens.map((t) => t.text);
}

const iterEvents = (from = 0): IterEvent[] => server.events.slice(from).flatMap((e) => (e.type === 'iterative' && e.model === MODEL ? [e.event as IterEvent] : []));

/** Resolves once `n` more steps finished: a change lands while sequences are running, not between waves. */
async function stepsLater(n: number): Promise<void> {
  const from = server.events.length;
  while (iterEvents(from).filter((e) => e.type === 'step_finished').length < n) await new Promise((r) => setTimeout(r, 2));
}

const PROMPTS = ['Hello, world', 'continuous batching', 'KV', 'InferScope serves tokens', 'a b c d e f', 'live knobs', 'preempt me', 'z'];
const maxTokensOf = (i: number) => 10 + (i * 7) % 19;

const kvEntry = () => server.built.memory.snapshot().flatMap((d) => d.entries).find((e) => e.model === MODEL && e.instance === 'kv_cache')?.bytes;

test('knobs changed live under generate_stream traffic: one complete answer per request, the tokens each prompt has alone', { timeout: 180_000 }, async () => {
  const alone: string[][] = [];
  for (let i = 0; i < PROMPTS.length; i++) alone.push(await generateStream(PROMPTS[i]!, maxTokensOf(i)));
  assert.ok(new Set(alone.map((a) => a.join(''))).size >= 4, 'not vacuous: prompts give different texts');
  const kvAtLoad = kvEntry();
  assert.ok(kvAtLoad && kvAtLoad > 0, 'the KV pool is in the ledger');

  const first = server.events.length;
  // traffic: waves of every prompt at once, until the changes are done
  let changing = true;
  const answers: Promise<{ i: number; pieces: string[] }>[] = [];
  const traffic = (async () => {
    while (changing) {
      const wave = PROMPTS.map((p, i) => generateStream(p, maxTokensOf(i)).then((pieces) => ({ i, pieces })));
      answers.push(...wave);
      await Promise.all(wave);
    }
  })();
  const CHANGES: [object, string[]][] = [
    [{ max_num_sequences: 2 }, ['parameters.max_num_sequences']],
    [{ batch_scheduler_policy: 'max_utilization' }, ['parameters.batch_scheduler_policy']],
    [{ max_tokens_in_paged_kv_cache: 512 }, ['parameters.max_tokens_in_paged_kv_cache']],
    [{ enable_chunked_context: true, max_num_tokens: 16 }, ['parameters.max_num_tokens', 'parameters.enable_chunked_context']],
    [{ max_num_sequences: 8, max_tokens_in_paged_kv_cache: 1024 }, ['parameters.max_num_sequences', 'parameters.max_tokens_in_paged_kv_cache']],
    [{ batch_scheduler_policy: 'guaranteed_no_evict', max_tokens_in_paged_kv_cache: 4096 }, ['parameters.batch_scheduler_policy', 'parameters.max_tokens_in_paged_kv_cache']],
    [{ max_num_tokens: 256, enable_chunked_context: false, max_num_sequences: 3 }, ['parameters.max_num_sequences', 'parameters.max_num_tokens', 'parameters.enable_chunked_context']],
  ];
  const blocksAfter: number[] = [];
  const ledgerAfter: (number | undefined)[] = [];
  for (const [change, paths] of CHANGES) {
    await stepsLater(3);
    const ack = await control(change);
    assert.equal(ack.ok, true, `${JSON.stringify(change)}: ${ack.error}`);
    assert.deepEqual(ack.changes!.map((c) => c.path).sort(), [...paths].sort(), JSON.stringify(ack));
    for (const c of ack.changes!) assert.equal(c.new, String((change as Record<string, unknown>)[c.path.slice('parameters.'.length)]), 'the parameter as config.pbtxt holds it: a string');
    await stepsLater(1);
    const started = iterEvents(first).filter((e) => e.type === 'step_started').at(-1) as Extract<IterEvent, { type: 'step_started' }>;
    blocksAfter.push(started.kv.totalBlocks);
    ledgerAfter.push(kvEntry());
  }
  // the same knob again is no change, and a bad value is refused with its reason, changing nothing
  assert.deepEqual(await control({ max_num_sequences: 3 }), { ok: true, changes: [] });
  const refusals: [object, RegExp][] = [
    [{ max_num_sequences: 0 }, /'max_num_sequences' must be between 1 and 4096, got 0/],
    [{ max_num_tokens: 1.5 }, /'max_num_tokens' must be an integer, got 1.5/],
    [{ batch_scheduler_policy: 'fastest' }, /'batch_scheduler_policy' must be one of guaranteed_no_evict, max_utilization, got "fastest"/],
    [{ enable_chunked_context: 'yes' }, /'enable_chunked_context' must be true or false/],
    [{ max_tokens_in_paged_kv_cache: 64 }, /parameter 'max_tokens_in_paged_kv_cache' of model 'tiny_lm_generate' caps the KV cache: .*less than one sequence's maximum of 256 tokens/],
    [{ max_batch_size: 4 }, /unknown field 'max_batch_size' in setIterativeKnobs/],
    [{ action: 'setDynamicBatching', max_queue_delay_microseconds: 100 }, /model 'tiny_lm_generate' is an iterative model .*with setIterativeKnobs, not dynamic batching/],
    [{}, /setIterativeKnobs needs at least one of: max_num_sequences, max_num_tokens, max_tokens_in_paged_kv_cache, enable_chunked_context, batch_scheduler_policy/],
  ];
  for (const [change, reason] of refusals) {
    await stepsLater(1);
    const ack = await control(change);
    assert.equal(ack.ok, false, JSON.stringify(change));
    assert.equal(ack.code, 'INVALID_ARG');
    assert.match(ack.error!, reason);
  }
  changing = false;
  await traffic;
  const got = await Promise.all(answers);
  assert.ok(got.length >= 2 * PROMPTS.length, `${got.length} requests during the changes`);
  for (const { i, pieces } of got) assert.deepEqual(pieces, alone[i], `${PROMPTS[i]}: its tokens alone`);
  // exactly one final response per request, and the swaps recomputed running sequences
  const finals = server.events.slice(first).filter((e) => e.type === 'request.response' && e.model === MODEL && e.final);
  assert.equal(finals.length, got.length, 'one final response per request');
  const ends = iterEvents(first).filter((e) => e.type === 'seq_finished');
  assert.equal(ends.length, got.length);
  assert.ok(ends.every((e) => e.type === 'seq_finished' && e.outcome === 'done'));
  assert.ok(iterEvents(first).some((e) => e.type === 'seq_preempted'), 'a new planner took over running sequences (recomputed)');
  // recorded like every live change: one config.changed per accepted change (the charts' config markers), none for a refusal
  const markers = server.events.slice(first).filter((e) => e.type === 'config.changed' && e.model === MODEL) as { changes: { path: string }[]; by: string }[];
  assert.equal(markers.length, CHANGES.length);
  assert.deepEqual(markers.map((m) => m.changes.map((c) => c.path).sort()), CHANGES.map(([, paths]) => [...paths].sort()));
  assert.ok(markers.every((m) => m.by.startsWith('dashboard')), markers[0]?.by);
  // the KV budget followed max_tokens_in_paged_kv_cache (16 tokens a block), and so did the ledger
  assert.deepEqual(blocksAfter.slice(2, 6), [32, 32, 64, 256]);
  assert.deepEqual(ledgerAfter.slice(2, 6), [32, 32, 64, 256].map((blocks) => (kvAtLoad! / 256) * blocks), 'the ledger\'s kv_cache entry is resized with it');
  assert.equal(kvEntry(), kvAtLoad, 'back at 4096 tokens, the ledger holds what it held at load');
  const idle = iterEvents(first).filter((e) => e.type === 'idle').at(-1)!;
  assert.ok(idle.type === 'idle' && idle.kv.usedBlocks === 0, 'every block free once the traffic ended');

  // the config written back carries the live parameters, in the file's own text
  const saved = (await socket.timeout(30_000).emitWithAck('control', { action: 'saveConfig', model: MODEL })) as { ok: boolean; error?: string };
  assert.equal(saved.ok, true, saved.error);
  const text = await readFile(join(repo.dir, MODEL, 'config.pbtxt'), 'utf8');
  assert.match(text, /parameters \{ key: "max_num_sequences" value: \{ string_value: "3" \} \}/);
  assert.match(text, /parameters \{ key: "max_num_tokens" value: \{ string_value: "256" \} \}/);
  assert.match(text, /parameters \{ key: "batch_scheduler_policy" value: \{ string_value: "guaranteed_no_evict" \} \}/);
  assert.match(text, /^# tiny_lm_generate: /, 'its comments kept');
});

test('without a memory budget the KV memory follows max_num_sequences, live as at load: the cache is re-sized and nothing is lost', { timeout: 120_000 }, async () => {
  const own = await tempRepository([MODEL]);
  const bare = await startTestServer({ modelRepositories: [own.dir] });
  const s = await connectSocket(bare.url);
  try {
    const ask = (text_input: string) =>
      fetch(`${bare.url}/v2/models/${MODEL}/generate`, { method: 'POST', body: JSON.stringify({ text_input, max_tokens: 20 }) }).then(async (r) => {
        assert.equal(r.status, 200);
        return ((await r.json()) as { text_output: string }).text_output;
      });
    const alone = await ask('no budget');
    const kv = () => bare.built.memory.snapshot().flatMap((d) => d.entries).find((e) => e.model === MODEL && e.instance === 'kv_cache')!.bytes;
    const atLoad = kv();
    const running = [ask('no budget'), ask('no budget'), ask('no budget')];
    const ack = (await s.timeout(30_000).emitWithAck('control', { action: 'setIterativeKnobs', model: MODEL, max_num_sequences: 4 })) as Ack;
    assert.equal(ack.ok, true, ack.error);
    // 8 x 256 tokens at load (128 blocks), 4 x 256 now
    assert.equal(kv(), atLoad / 2);
    assert.deepEqual(await Promise.all(running), [alone, alone, alone]);
    const steps = bare.events.flatMap((e) => (e.type === 'iterative' && e.model === MODEL && (e.event as IterEvent).type === 'step_started' ? [e.event as Extract<IterEvent, { type: 'step_started' }>] : []));
    assert.equal(steps.at(-1)!.kv.totalBlocks, 64);
  } finally {
    s.close();
    await bare.close();
    await own.remove();
  }
});
