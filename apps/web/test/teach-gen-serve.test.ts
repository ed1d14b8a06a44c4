// Teaching mode serves tiny_lm_generate (gen-serve.ts) on the simulation's virtual clock under the
// generative lessons' own workloads: its config is the bundled file's, its events reach the page through
// core's GenerationFeed (gen-replay.ts), and Live Controls' knob changes under traffic (in place, and a new
// planner over a new KV cache) are acknowledged with the change list and lose no sequence: every request
// is answered exactly once, with the tokens it would have had alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeModelConfig, parseModelConfig } from '@inferscope/core/config';
import { simGenerateAlone, type IterEvent } from '@inferscope/core/iterative';
import { GenerationView } from '@inferscope/core/live';
import { TeachingEngine } from '../src/teach/engine';
import { LESSONS } from '../src/teach/lessons';
import { GEN_MODEL, genSetupFor, loadedGenConfig, tinyLmGenerateConfig } from '../src/teach/gen-model';
import { GenReplay } from '../src/teach/gen-replay';
import { rebuildArrivals } from '../src/teach/rebuild-run';
import { kvArrivals } from '../src/teach/kv-limit-run';

const REPO = join(import.meta.dirname, '../../../model_repository');

test("teaching's tiny_lm_generate is the bundled config.pbtxt, and its knobs read as the server's load reads them", () => {
  const file = parseModelConfig(readFileSync(join(REPO, GEN_MODEL, 'config.pbtxt'), 'utf8'));
  assert.deepEqual(loadedGenConfig(), normalizeModelConfig(file, { modelName: GEN_MODEL, gpuCount: 0 }));
  assert.deepEqual(tinyLmGenerateConfig().parameters, file.parameters);
  // no memory budget: every one of the 8 slots its longest sequence (256 tokens), blocks of 16
  const { knobs, batching } = genSetupFor(loadedGenConfig());
  assert.deepEqual({ ...knobs, batching }, { maxNumSequences: 8, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 128, blockTokens: 16, batching: 'continuous' });
});

async function lessonEngine(id: string, seed = 1) {
  const engine = new TeachingEngine(LESSONS.find((l) => l.id === id)!.scenario(seed));
  await engine.whenReady();
  assert.ok(engine.gen, `lesson ${id} serves the generative model`);
  return { engine, gen: engine.gen };
}

/** Every sequence's tokens, from the run's token events, by request id. */
function tokensOf(events: readonly IterEvent[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of events) {
    if (e.type !== 'token') continue;
    const list = out.get(e.id) ?? [];
    list[e.index] = e.token;
    out.set(e.id, list);
  }
  return out;
}

test("lesson 15's playback serves the lesson's own arrivals, round after round, and the feed carries its timeline, blocks and figures", async () => {
  const { engine, gen } = await lessonEngine('rebuild');
  const round = rebuildArrivals(1);
  engine.advanceTo(3 * gen.periodUs);
  const queued = gen.events.filter((e) => e.type === 'seq_queued');
  // round 1 is the lesson's own run: the same arrival times and lengths
  const first = queued.filter((e) => e.type === 'seq_queued' && e.id.startsWith('1.'));
  assert.deepEqual(first.map((e) => e.type === 'seq_queued' && [e.t, e.promptTokens, e.maxTokens]), round.map((a) => [a.atUs, a.request.prompt.length, a.request.maxTokens]));
  assert.ok(queued.some((e) => e.id.startsWith('3.')), 'the third round started');

  const view = new GenerationView();
  const replay = new GenReplay(gen, 10_000);
  for (let t = 10_000; t <= engine.now(); t += 10_000) {
    const m = replay.tick(t);
    if (m) for (const u of m.models) view.apply(u);
  }
  const state = view as unknown as { rows: number };
  assert.ok(state.rows > 1, `timeline rows: ${state.rows}`);
  assert.ok(gen.blocksAt(engine.now())?.usage.totalBlocks === 128);
});

test('knob changes under traffic: acknowledged with the change list at a step boundary, every sequence answered exactly once with its own tokens', async () => {
  const { engine, gen } = await lessonEngine('kvlimit');
  const changes: [Record<string, unknown>, string][] = [
    [{ max_num_sequences: 3 }, 'in place'],
    [{ batch_scheduler_policy: 'max_utilization' }, 'a new planner, running sequences recomputed'],
    [{ max_tokens_in_paged_kv_cache: 512 }, 'a smaller KV cache'],
    [{ enable_chunked_context: true, max_num_tokens: 32 }, 'in place'],
    [{ max_num_sequences: 8, max_tokens_in_paged_kv_cache: 4096 }, 'back'],
  ];
  let at = 0;
  for (const [patch, why] of changes) {
    at += gen.periodUs * 0.7; // mid-round: sequences running and waiting
    engine.advanceTo(at);
    const before = gen.counts;
    assert.ok(before.sent > before.answered, `sequences in flight before ${why}`);
    const ack = await engine.control({ action: 'setIterativeKnobs', model: GEN_MODEL, ...patch });
    assert.equal(ack.ok, true, `${why}: ${JSON.stringify(ack)}`);
    assert.ok(ack.ok && 'changes' in ack && ack.changes.length === Object.keys(patch).length, JSON.stringify(ack));
    for (const [k, v] of Object.entries(patch)) assert.equal(gen.config.parameters?.[k]?.string_value, String(v));
  }
  // a KV budget under one sequence is refused in the load's words, nothing changed
  const refused = await engine.control({ action: 'setIterativeKnobs', model: GEN_MODEL, max_tokens_in_paged_kv_cache: 64 });
  assert.ok(!refused.ok && /max_tokens_in_paged_kv_cache.*caps the KV cache/.test(refused.error), JSON.stringify(refused));
  assert.equal(gen.config.parameters?.max_tokens_in_paged_kv_cache?.string_value, '4096');
  assert.ok(gen.events.some((e) => e.type === 'seq_preempted'), 'the policy / KV change recomputed running sequences');

  // traffic ends; everything drains
  engine.advanceTo(engine.now() + 60 * gen.periodUs + 10_000_000);
  assert.ok(gen.idle);
  const { sent, answered, twice } = gen.counts;
  assert.ok(sent >= 16 * 5, `sent ${sent}`);
  assert.equal(answered, sent, 'every sequence answered');
  assert.equal(twice, 0, 'none answered twice');
  const finished = gen.events.filter((e) => e.type === 'seq_finished');
  assert.equal(finished.length, sent);
  assert.ok(finished.every((e) => e.type === 'seq_finished' && e.outcome === 'done'));
  // batch invariance across the changes: each sequence's tokens are its tokens run alone
  const queued = new Map(gen.events.flatMap((e) => (e.type === 'seq_queued' ? [[e.id, e.maxTokens] as const] : [])));
  const prompts = new Map<string, readonly number[]>();
  for (let k = 0; k < sent / 16; k++) for (const a of kvArrivals(1 + k)) prompts.set(`${k + 1}.${a.request.id}`, a.request.prompt);
  for (const [id, tokens] of tokensOf(gen.events)) assert.deepEqual(tokens, simGenerateAlone(prompts.get(id)!, queued.get(id)!), id);
  // a replanned loop numbers its steps on (the feed would start its picture afresh on a step counted again)
  const steps = gen.events.flatMap((e) => (e.type === 'step_started' ? [e.step] : []));
  assert.ok(steps.every((n, i) => i === 0 || n === steps[i - 1]! + 1), 'steps numbered 1, 2, 3, ... across the changes');
  // the markers: config.changed on the simulation's bus, by teaching
  assert.equal(engine.events.filter((e) => e.type === 'config.changed' && e.model === GEN_MODEL).length, changes.length);
});
