// The gateway's `generation` message against the real server (port 0) serving tiny_lm_generate: a client
// connected before the traffic gets a reset, then deltas; folded in order they hold every stream's
// prefill and decode cells, the KV block map filling and then empty, and figures points whose tokens are
// the tokens streamed. No `iterative` event rides the frames (one per token would flood them). A client
// connecting afterwards gets the kept picture in one reset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'socket.io-client';
import { GenerationView, WIRE, type GenerationMessage } from '@inferscope/core/live';
import type { Frame } from '@inferscope/core';
import { startRealServer, type RealServer } from './real-server.ts';
import { streamTokens } from '../support/generate-stream.ts';

const MODEL = 'tiny_lm_generate';
let server: RealServer;

before(async () => {
  server = await startRealServer({ models: [MODEL] });
});
after(async () => {
  await server?.close();
});

interface Listener {
  socket: Socket;
  view: GenerationView;
  messages: GenerationMessage[];
  frames: Frame[];
}

function listen(socket: Socket): Listener {
  const l: Listener = { socket, view: new GenerationView(), messages: [], frames: [] };
  socket.on(WIRE.generation, (m: GenerationMessage) => {
    l.messages.push(m);
    for (const u of m.models) if (u.model === MODEL) l.view.apply(u);
  });
  socket.on(WIRE.frame, (f: Frame) => l.frames.push(f));
  return l;
}

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const stream = (prompt: string, maxTokens: number) => streamTokens(server.url, MODEL, prompt, maxTokens);

test('the dashboard gets the token timeline, the block map filling and freeing, and the figures, folded', { timeout: 60_000 }, async () => {
  const early = listen(await server.connect());
  const prompts = ['the timeline', 'blocks fill and free', 'x', 'continuous batching at work', 'tokens per second'];
  const counts = await Promise.all(prompts.map((p, i) => stream(p, 20 + 6 * i)));
  const streamed = counts.reduce((a, b) => a + b, 0);
  assert.equal(streamed, prompts.reduce((n, _, i) => n + 20 + 6 * i, 0));
  // the last points close a second after the traffic: wait for the one that brings the lines to zero
  await until('the figures to hold every token', () => early.view.points.reduce((n, p) => n + p.outputTokens, 0) === streamed && early.view.points.at(-1)?.outputTokens === 0);
  await until('the empty block map', () => early.view.kv?.usage.usedBlocks === 0);

  assert.equal(early.messages[0]!.models[0]!.reset, true, 'the first message is a reset');
  assert.ok(early.messages.slice(1).every((m) => m.models.every((u) => !u.reset)), 'then deltas');
  const v = early.view;
  const ids = new Set(v.cells.map((c) => c.id));
  assert.equal(ids.size, prompts.length, 'one sequence per stream in the timeline');
  for (const id of ids) {
    const mine = v.cells.filter((c) => c.id === id);
    assert.equal(mine[0]!.kind, 'prefill', `${id} starts with its prefill`);
    assert.ok(mine.filter((c) => c.kind === 'decode').length >= 19, `${id} decodes a cell per token`);
  }
  assert.ok(v.rows >= 2 && v.rows <= 8, `slots used: ${v.rows} (max_num_sequences 8)`);
  const steps = new Set(v.cells.map((c) => c.step));
  assert.ok([...steps].some((s) => v.cells.filter((c) => c.step === s).length >= 2), 'streams shared steps');
  assert.equal(v.kv!.blocks.length, v.kv!.usage.totalBlocks, 'every block of the budget is drawn');
  assert.equal(v.kv!.usage.totalBlocks, (8 * 256) / 16, 'no memory budget: max_num_sequences x max_seq_len tokens in blocks of 16');
  assert.equal(v.kv!.blocks.filter((b) => b.owner !== null).length, 0);
  const busy = v.points.filter((p) => p.outputTokens > 0);
  assert.ok(busy.every((p) => p.outputTokensPerSec > 0 && p.kv !== null));
  const firsts = busy.flatMap((p) => (p.ttftUs ? [p.ttftUs] : []));
  assert.ok(firsts.length > 0 && firsts.every((s) => s.p50 > 0 && s.p99 >= s.p50), 'TTFT in the points');
  assert.ok(busy.some((p) => p.interTokenUs && p.interTokenUs.p50 > 0), 'inter-token latency in the points');
  assert.ok(!early.frames.some((f) => f.events.some((e) => e.type === 'iterative')), 'no iterative event in the frames');
  assert.ok(early.frames.some((f) => f.events.some((e) => e.type === 'batch.completed' && e.model === MODEL)), 'the steps still show as executions');

  const late = listen(await server.connect());
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(late.messages.length, 1, 'a client connecting later gets one reset with the kept picture');
  assert.equal(late.messages[0]!.models[0]!.reset, true);
  assert.deepEqual(late.view.cells, v.cells);
  assert.deepEqual(late.view.points, v.points);
  assert.deepEqual(late.view.kv, v.kv);
  early.socket.close();
  late.socket.close();
});

test('with nobody watching nothing is folded: the next client sees only what ran after it connected', { timeout: 60_000 }, async () => {
  await new Promise((r) => setTimeout(r, 300)); // the gateway sees the last client leave
  assert.equal(await stream('nobody watches this one', 12), 12);
  const next = listen(await server.connect());
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(next.messages.length, 0, 'no picture kept from before');
  assert.equal(await stream('watched', 10), 10);
  await until('the watched stream drawn', () => next.view.cells.filter((c) => c.kind === 'decode').length === 9 && next.view.kv?.usage.usedBlocks === 0);
  assert.equal(new Set(next.view.cells.map((c) => c.id)).size, 1, 'only the sequence that ran while it watched');
  assert.equal(next.messages[0]!.models[0]!.reset, true);
});

// The block map is a sample taken at the gateway's tick (250 ms), so a short stream can start and end
// between two ticks on a fast machine: a long stream is sent until a tick lands inside one (each try's
// 200 steps outlast a tick on any machine this runs on; the tries only absorb a scheduler hiccup).
test('while a sequence runs, the block map the dashboard gets holds its blocks, owned by it', { timeout: 60_000 }, async () => {
  const watcher = listen(await server.connect());
  const filled: number[] = [];
  watcher.view.apply = ((apply) => (u) => {
    apply(u);
    const kv = watcher.view.kv;
    if (u.kv && kv && kv.usage.usedBlocks > 0) filled.push(kv.blocks.filter((b) => b.owner !== null).length);
  })(watcher.view.apply.bind(watcher.view));
  for (let i = 0; i < 5 && filled.length === 0; i++) assert.equal(await stream(`a long stream, try ${i}`, 200), 200);
  assert.ok(filled.length > 0, 'a block map with blocks in use arrived while a stream ran');
  // 200 tokens plus the prompt hold at least 13 blocks of 16 at the end; any sample holds at least one
  assert.ok(filled.every((n) => n >= 1 && n <= 16), JSON.stringify(filled));
  await until('the empty block map', () => watcher.view.kv?.usage.usedBlocks === 0);
  watcher.socket.close();
});
