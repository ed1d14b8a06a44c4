// The KV pool of an iterative model is bounded by the memory budget: sized at start from what
// --memory-budget leaves free on the instance's device (x kv_cache_free_gpu_mem_fraction, capped by
// max_tokens_in_paged_kv_cache), reserved in the ledger as instance `kv_cache`, released at stop; a budget
// that cannot hold one max_seq_len sequence refuses the model with the shortfall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBus, type Executor, type InferPayload, type InferResult } from '@inferscope/core';
import { RealClock } from '@inferscope/core/clock';
import { normalizeModelConfig, parseModelConfig } from '@inferscope/core/config';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import { readOnnxSignature } from '../../apps/server/src/backends/index';
import { generativeModelOf } from '../../apps/server/src/generate/generative-model';
import { IterativeScheduler } from '../../apps/server/src/generate/iterative-scheduler';
import { REPO } from '../backends/fixtures';

const DIR = join(REPO, 'tiny_lm_generate');
const MiB = 1024 * 1024;
/** KV bytes of one token of tiny_lm: 2 layers x (K, V) x 4 heads x 16 x FP32 */
const TOKEN = 1024;

function scheduler(budget: number, parameters: Record<string, string> = {}) {
  let text = readFileSync(join(DIR, 'config.pbtxt'), 'utf8');
  for (const [k, v] of Object.entries(parameters)) {
    const line = new RegExp(`(key: "${k}" value: \\{ string_value: )"[^"]*"`);
    text = line.test(text) ? text.replace(line, `$1"${v}"`) : `${text}parameters { key: "${k}" value: { string_value: "${v}" } }\n`;
  }
  const config = normalizeModelConfig(parseModelConfig(text), { modelName: 'tiny_lm_generate', gpuCount: 0 });
  const generative = generativeModelOf(readOnnxSignature(join(DIR, '1/model.onnx')), config);
  const memory = new MemoryLedger({ budgets: { cpu: budget } });
  // the instance's own memory, as the onnxruntime executor reserves it when it starts
  const executor: Executor<InferPayload, InferResult> = {
    startInstance: async () => void memory.reserve({ device: 'cpu', model: 'tiny_lm_generate', version: '1', instance: 'tiny_lm_generate_0' }, 2 * MiB),
    execute: async () => [],
  };
  const s = new IterativeScheduler({ model: 'tiny_lm_generate', version: '1', idPrefix: 'g:', config, generative, clock: new RealClock(), bus: new EventBus(), executor, memory });
  const kv = () => memory.snapshot()[0]!.entries.find((e) => e.instance === 'kv_cache')?.bytes;
  return { s, kv };
}

test('the KV pool is what the budget leaves after the instance, times the fraction, capped by max_tokens_in_paged_kv_cache; released at stop', async () => {
  const small = scheduler(3 * MiB);
  await small.s.start();
  assert.equal(small.kv(), 1 * MiB, '3 MiB budget - 2 MiB instance = 1 MiB = 64 blocks of 16 tokens');
  assert.equal(small.s.kvUsage()?.totalBlocks, 64);
  await small.s.stop();
  assert.equal(small.kv(), undefined, 'released when the model stops');

  const half = scheduler(3 * MiB, { kv_cache_free_gpu_mem_fraction: '0.5' });
  await half.s.start();
  assert.equal(half.kv(), MiB / 2);
  await half.s.stop();

  const large = scheduler(512 * MiB);
  await large.s.start();
  assert.equal(large.kv(), 4096 * TOKEN, 'max_tokens_in_paged_kv_cache 4096 is the smaller limit');
  await large.s.stop();
});

test('a budget that cannot hold one max_seq_len sequence refuses the model at start, saying so', async () => {
  const tight = scheduler(2 * MiB + 100 * TOKEN);
  await assert.rejects(tight.s.start(), (e: Error) => /256 tokens/.test(e.message) && /KV/i.test(e.message));
  assert.equal(tight.kv(), undefined);
});
