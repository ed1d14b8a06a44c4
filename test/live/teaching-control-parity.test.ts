/**
 * Teaching mode refuses what the server refuses, with the same words: one list of control messages (in
 * range, out of range, 0 instances, wrong types, unknown fields, delays and queue sizes past LIVE_LIMITS,
 * rules between fields, unknown models and versions, malformed and oversized messages) goes, in order,
 * through the server's control path and through teaching's engine, each with its own copy of the same
 * model. The server's side is its own code: the gateway's validator and refusal, handleControl, and the
 * manager's live edits (core's planner, the config file's rules, the scheduler), with a real
 * ModelScheduler on a virtual clock behind it. Every acknowledgement must be equal: accept or refuse,
 * the words, the code and the change list. The generative lessons' tiny_lm_generate likewise: the server's
 * live edits on its real IterativeScheduler (the bundled config and model file) against teaching's step
 * loop serving the lesson's traffic; the knob changes the server accepts are accepted with the same
 * change lists, and its refusals are refused in its words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errors, type ControlAck, type ControlMessage, type DynamicBatchingPatch } from '@inferscope/core';
import { normalizeModelConfig, type ModelConfig } from '@inferscope/core/config';
import { controlRefusal as refused, validateControlMessage as coreValidate } from '@inferscope/core/live';
import { createSimulation } from '@inferscope/core/sim';
import { handleControl } from '../../apps/server/src/live/control-handler.ts';
import type { ControlTarget } from '../../apps/server/src/control/types.ts';
import { updateDynamicBatching, setInstanceCount, setIterativeKnobs, type LiveEditContext } from '../../apps/server/src/models/live-edits.ts';
import type { IterativeKnobPatch } from '@inferscope/core/live-config';
import { findSlot } from '../../apps/server/src/models/views.ts';
import { defaultRuntime } from '../../apps/server/src/models/default-runtime.ts';
import { MemoryLedger } from '../../apps/server/src/memory/ledger.ts';
import { publicMessage } from '../../apps/server/src/infer/redact-paths.ts';
import type { ModelEntry, VersionSlot } from '../../apps/server/src/models/types.ts';
import { TeachingEngine, toCoreScenario } from '../../apps/web/src/teach/engine.ts';
import { EventBus, type Executor, type InferPayload, type InferResult } from '@inferscope/core';
import { RealClock } from '@inferscope/core/clock';
import { parseModelConfig } from '@inferscope/core/config';
import { readOnnxSignature } from '../../apps/server/src/backends/index';
import { generativeModelOf } from '../../apps/server/src/generate/generative-model';
import { IterativeScheduler } from '../../apps/server/src/generate/iterative-scheduler';
import { REPO } from '../backends/fixtures';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LESSONS } from '../../apps/web/src/teach/lessons.ts';

const M = 'mlp_classifier';

/** The server's control path for one model (the manager's live edits on a real scheduler), as the gateway answers. */
function serverSide(scenario: ReturnType<(typeof LESSONS)[number]['scenario']>) {
  const m = scenario.models[0];
  const sim = createSimulation({
    scenario: toCoreScenario(scenario), configs: [{ ...m.config, name: m.name }], cost: { [m.name]: m.cost }, seed: scenario.seed,
  });
  // the config as the server keeps a loaded version's: normalised with Triton's defaults
  const config = normalizeModelConfig(structuredClone({ name: m.name, platform: m.platform, ...m.config }) as unknown as ModelConfig, { modelName: m.name, gpuCount: 0 });
  return gateway(m.name, config, sim.schedulers.get(m.name), new MemoryLedger());
}

/** The gateway and the manager's live edits over one loaded version (its config and its scheduler). */
function gateway(name: string, config: ModelConfig, scheduler: unknown, memory: MemoryLedger) {
  const slot = { version: 1, state: 'READY', config, scheduler, files: [], changedPaths: new Set<string>() } as unknown as VersionSlot;
  const entry = { name, maxBatchLimit: config.max_batch_size ?? 0, versions: new Map([[1, slot]]) } as unknown as ModelEntry;
  const entries = new Map([[name, entry]]);
  const ctx: LiveEditContext = { runtime: defaultRuntime({ memory }), gpuCount: 0 };
  const toVersion = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const target = {
    updateDynamicBatching: async (name: string, version: string | undefined, patch: DynamicBatchingPatch, by: string) => {
      const { entry: e, slot: s } = findSlot(entries, name, toVersion(version));
      return updateDynamicBatching(ctx, e, s, patch, by);
    },
    setInstanceCount: async (name: string, version: string | undefined, group: string | undefined, count: number, by: string) => {
      const { entry: e, slot: s } = findSlot(entries, name, toVersion(version));
      return setInstanceCount(ctx, e, s, group, count, by);
    },
    setIterativeKnobs: async (name: string, version: string | undefined, patch: IterativeKnobPatch, by: string) => {
      const { entry: e, slot: s } = findSlot(entries, name, toVersion(version));
      return setIterativeKnobs(ctx, e, s, patch, by);
    },
  } as ControlTarget;
  // the gateway: validate, refuse in the validator's words as INVALID_ARG, else handle; every error capped
  return async (raw: unknown): Promise<ControlAck> => {
    // the server's gateway validates with core's validator (live/gateway.ts), as teaching's engine does
    const v = coreValidate(raw);
    const ack = v.ok ? await handleControl(v.value as ControlMessage, 'dashboard', target, undefined) : refused(errors.INVALID(v.error));
    return ack.ok ? ack : { ...ack, error: publicMessage(ack.error) };
  };
}

const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

/** setIterativeKnobs past its bounds, of the wrong types, with an unknown field or none, at an unknown version. */
const knobRefusals = (model: string): unknown[] => [
  { action: 'setIterativeKnobs', model, max_num_sequences: 0 },
  { action: 'setIterativeKnobs', model, max_num_tokens: 1_048_577 },
  { action: 'setIterativeKnobs', model, max_tokens_in_paged_kv_cache: 2.5 },
  { action: 'setIterativeKnobs', model, batch_scheduler_policy: 'fastest' },
  { action: 'setIterativeKnobs', model, enable_chunked_context: 'yes' },
  { action: 'setIterativeKnobs', model, max_queue_delay_microseconds: 5 },
  { action: 'setIterativeKnobs', model },
  { action: 'setIterativeKnobs', model, version: 2, max_num_tokens: 4 },
];

/** In order: later messages see what earlier accepted ones changed. */
const MESSAGES: unknown[] = [
  // accepted, then the same again (no change)
  { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 500 },
  { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 500 },
  { action: 'setDynamicBatching', model: M, version: 1, preferred_batch_size: [4, 8] },
  { action: 'setDynamicBatching', model: M, version: '1', max_batch_size: 16 },
  { action: 'setDynamicBatching', model: M, default_queue_policy: { max_queue_size: 64, timeout_action: 'REJECT', default_timeout_microseconds: 100_000 } },
  { action: 'setDynamicBatching', model: M, priority_levels: 2, default_priority_level: 2, priority_queue_policy: { 1: { max_queue_size: 8 } } },
  { action: 'setDynamicBatching', model: M, preferred_batch_size: [] },
  { action: 'setDynamicBatching', model: M, preserve_ordering: true },
  { action: 'setInstanceCount', model: M, count: 2 },
  { action: 'setInstanceCount', model: M, count: 2 },
  { action: 'setInstanceCount', model: M, group: `${M}_0`, count: 3 },
  { action: 'setInstanceCount', model: M, count: 64, token: 'ignored-here' },
  { action: 'setInstanceCount', model: M, count: 1 },
  // instances: 0, past the limit, wrong types, unknown group, missing
  { action: 'setInstanceCount', model: M, count: 0 },
  { action: 'setInstanceCount', model: M, count: 65 },
  { action: 'setInstanceCount', model: M, count: -1 },
  { action: 'setInstanceCount', model: M, count: 1.5 },
  { action: 'setInstanceCount', model: M, count: '2' },
  { action: 'setInstanceCount', model: M, count: null },
  { action: 'setInstanceCount', model: M },
  { action: 'setInstanceCount', model: M, group: 'nope', count: 2 },
  { action: 'setInstanceCount', model: M, group: '', count: 2 },
  { action: 'setInstanceCount', model: M, count: 2, instances: 2 },
  // delays, sizes, queue policies past LIVE_LIMITS or of the wrong type
  { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: -1 },
  { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 3_600_000_001 },
  { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 1.5 },
  { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: '500' },
  { action: 'setDynamicBatching', model: M, max_batch_size: 0 },
  { action: 'setDynamicBatching', model: M, max_batch_size: 64 },
  { action: 'setDynamicBatching', model: M, max_batch_size: 33 },
  { action: 'setDynamicBatching', model: M, preferred_batch_size: [64] },
  { action: 'setDynamicBatching', model: M, preferred_batch_size: [0] },
  { action: 'setDynamicBatching', model: M, preferred_batch_size: 4 },
  { action: 'setDynamicBatching', model: M, preferred_batch_size: Array.from({ length: 65 }, () => 1) },
  { action: 'setDynamicBatching', model: M, default_queue_policy: { max_queue_size: 10_000_001 } },
  { action: 'setDynamicBatching', model: M, default_queue_policy: { max_queue_size: -1 } },
  { action: 'setDynamicBatching', model: M, default_queue_policy: { default_timeout_microseconds: 3_600_000_001 } },
  { action: 'setDynamicBatching', model: M, default_queue_policy: { timeout_action: 'DROP' } },
  { action: 'setDynamicBatching', model: M, default_queue_policy: { bogus: 1 } },
  { action: 'setDynamicBatching', model: M, priority_queue_policy: { 0: { max_queue_size: 1 } } },
  { action: 'setDynamicBatching', model: M, priority_levels: 1001 },
  { action: 'setDynamicBatching', model: M, default_priority_level: 5 },
  { action: 'setDynamicBatching', model: M, priority_levels: 0, default_priority_level: 2 },
  { action: 'setDynamicBatching', model: M, preserve_ordering: 'yes' },
  { action: 'setDynamicBatching', model: M, max_queue_delay: 5 },
  { action: 'setDynamicBatching', model: M },
  // who and which version
  { action: 'setDynamicBatching', model: 'nope', max_queue_delay_microseconds: 1 },
  { action: 'setInstanceCount', model: 'nope', count: 2 },
  { action: 'setInstanceCount', model: M, version: 2, count: 2 },
  { action: 'setInstanceCount', model: M, version: 'abc', count: 2 },
  { action: 'setInstanceCount', model: '../etc', count: 2 },
  { action: 'setInstanceCount', model: '', count: 2 },
  // an iterative model's knobs: refused for this request-level model, and their bounds and words
  { action: 'setIterativeKnobs', model: M, max_num_sequences: 4 },
  { action: 'setIterativeKnobs', model: M, version: 1, batch_scheduler_policy: 'max_utilization', enable_chunked_context: true },
  ...knobRefusals(M),
  { action: 'setIterativeKnobs', model: 'nope', max_num_tokens: 4 },
  // not a control message
  null, 42, 'setInstanceCount', [{ action: 'setInstanceCount', model: M, count: 2 }], {},
  { action: 'explode', model: M }, { action: 5 },
  { action: 'setInstanceCount', model: M, count: 2, extra: nested(150) },
  { action: 'setInstanceCount', model: M, count: 2, note: 'x'.repeat(70_000) },
  { action: 'loadModel', model: '../x' },
  // a last accepted change after all the refusals: nothing above changed anything
  { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 0 },
];

test('teaching mode and the server answer every control message alike: accepted or refused, the same words and code', async () => {
  const lesson = LESSONS.find((l) => l.id === 'batching')!;
  const scenario = lesson.scenario(3);
  assert.equal(scenario.budgetBytes, 0, 'no memory budget: the budget is the server ledger\'s, not a live-change rule');
  const server = serverSide(scenario);
  const engine = new TeachingEngine(scenario);
  await engine.whenReady();
  let accepted = 0;
  let refusals = 0;
  for (const raw of MESSAGES) {
    const label = JSON.stringify(raw)?.slice(0, 120);
    const fromServer = await server(raw);
    const fromTeaching = await engine.control(raw);
    assert.deepEqual(fromTeaching, fromServer, `teaching and server differ on ${label}`);
    if (fromServer.ok) accepted++;
    else refusals++;
  }
  assert.ok(accepted >= 12 && refusals >= 40, `accepted ${accepted}, refused ${refusals}`);
  // the instance bound is LIVE_LIMITS', in the schema's words, on both
  const zero = await engine.control({ action: 'setInstanceCount', model: M, count: 0 });
  assert.deepEqual(zero, { ok: false, error: "'count' must be between 1 and 64, got 0", code: 'INVALID_ARG' });
  const notIterative = await engine.control({ action: 'setIterativeKnobs', model: M, max_num_tokens: 64 });
  assert.ok(!notIterative.ok && /model 'mlp_classifier' is not an iterative model \(sequence_batching \{ iterative_sequence: true \}\)/.test(notIterative.error), JSON.stringify(notIterative));
});

test("the scheduler's own live entry points use the planner too: 0 or 65 instances refused in LIVE_LIMITS' words", async () => {
  const scenario = LESSONS.find((l) => l.id === 'batching')!.scenario(3);
  const m = scenario.models[0];
  const sim = createSimulation({ scenario: toCoreScenario(scenario), configs: [{ ...m.config, name: m.name }], cost: { [m.name]: m.cost }, seed: 3 });
  await new Promise((r) => setTimeout(r, 0));
  const s = sim.schedulers.get(m.name)!;
  await assert.rejects(s.setInstanceCount(undefined, 0, 't'), (e: Error & { code?: string }) => e.message === "'count' must be between 1 and 64, got 0" && e.code === 'INVALID_ARG');
  await assert.rejects(s.setInstanceCount(undefined, 65, 't'), /'count' must be between 1 and 64, got 65/);
  assert.throws(() => s.updateDynamicBatching({ max_batch_size: 64 }, 't'), /above what model 'mlp_classifier' allows \(32/);
});

const G = 'tiny_lm_generate';

/** The server's control path for tiny_lm_generate as it loads it (the bundled config and model file, no memory budget), its scheduler the real IterativeScheduler. */
async function generativeServerSide() {
  const dir = join(REPO, G);
  const config = normalizeModelConfig(parseModelConfig(readFileSync(join(dir, 'config.pbtxt'), 'utf8')), { modelName: G, gpuCount: 0 });
  const memory = new MemoryLedger();
  // no request is sent, so no step runs: the executor only starts its instance
  const executor: Executor<InferPayload, InferResult> = { execute: async () => [] };
  const scheduler = new IterativeScheduler({ model: G, version: '1', idPrefix: 'g:', config, generative: generativeModelOf(readOnnxSignature(join(dir, '1/model.onnx')), config), clock: new RealClock(), bus: new EventBus(), executor, memory });
  await scheduler.start();
  return { control: gateway(G, config, scheduler, memory), stop: () => scheduler.stop() };
}

/** In order, for the generative lessons' model: accepted ones (in place, new planner, new KV size), then refusals in the load's and the schema's words. */
const GENERATIVE_MESSAGES: unknown[] = [
  { action: 'setIterativeKnobs', model: G, max_num_sequences: 4 },
  { action: 'setIterativeKnobs', model: G, max_num_sequences: 4 },
  { action: 'setIterativeKnobs', model: G, version: '1', batch_scheduler_policy: 'max_utilization', enable_chunked_context: true },
  { action: 'setIterativeKnobs', model: G, max_num_tokens: 64 },
  { action: 'setIterativeKnobs', model: G, max_tokens_in_paged_kv_cache: 1024 },
  { action: 'setIterativeKnobs', model: G, max_num_sequences: 16, max_tokens_in_paged_kv_cache: 4096 },
  { action: 'setIterativeKnobs', model: G, version: 1, batch_scheduler_policy: 'guaranteed_no_evict' },
  // refused: a KV budget under one sequence (the load's words), the bounds, the types, the version, the fields
  { action: 'setIterativeKnobs', model: G, max_tokens_in_paged_kv_cache: 64 },
  ...knobRefusals(G),
  { action: 'setIterativeKnobs', model: G, max_num_sequences: 1_000_000_000 },
  // the request-level controls, refused for an iterative model
  { action: 'setDynamicBatching', model: G, max_queue_delay_microseconds: 500 },
  { action: 'setInstanceCount', model: G, count: 2 },
  { action: 'setInstanceCount', model: G, count: 1 },
  // a last accepted change after the refusals: nothing above changed anything
  { action: 'setIterativeKnobs', model: G, max_num_sequences: 2, max_num_tokens: 256 },
];

test('the generative lessons serve tiny_lm_generate: its knobs are accepted and refused by teaching as by the server, the same change lists and words', async () => {
  const scenario = LESSONS.find((l) => l.id === 'rebuild')!.scenario(1);
  const server = await generativeServerSide();
  const engine = new TeachingEngine(scenario);
  await engine.whenReady();
  engine.advanceTo(20_000); // teaching's model is serving its lesson's traffic meanwhile
  let accepted = 0;
  let refusals = 0;
  try {
    for (const raw of GENERATIVE_MESSAGES) {
      const label = JSON.stringify(raw);
      const fromServer = await server.control(raw);
      const fromTeaching = await engine.control(raw);
      assert.deepEqual(fromTeaching, fromServer, `teaching and server differ on ${label}`);
      if (fromServer.ok && 'changes' in fromServer && fromServer.changes.length > 0) accepted++;
      if (!fromServer.ok) refusals++;
    }
  } finally {
    await server.stop();
  }
  assert.equal(accepted, 7, 'every change the server accepts, teaching accepts with the same change list');
  assert.ok(refusals >= 7, `refused ${refusals}`);
  assert.equal(engine.gen!.config.parameters?.max_num_sequences?.string_value, '2');
});
