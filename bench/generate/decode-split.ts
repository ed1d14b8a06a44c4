/**
 * Lab check of core's model-call rule (iterative/model-calls.ts): a continuous run's steps on
 * tiny_lm_generate with the decode rows cut by context (the rule, CALL_COST_SLOTS) against all decode
 * rows in one call, step by step on the same KV blocks, in this process on onnxruntime's native session.
 * The steps are the simulator's (the stored step cost) under the bench's workload and closed loop, so
 * both groupings run the very same batches; each step runs both ways, the order alternating by round.
 *
 *     npx tsx bench/generate/decode-split.ts [--sequences 8] [--requests 800] [--rounds 3]
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { simulateGeneration, stepCostCalibration, stepModelCalls, type GenRequest, type StepBatch } from '@inferscope/core/iterative';
import { KvBlockStore, buildKvStep, storeKvStep } from '@inferscope/core/kv-cache';
import { TINY_LM_KV_SHAPE } from '../../apps/server/src/model-generator/tiny-lm';
import { NativeSession, loadNativeBinding, runPlainTensors } from '../../apps/server/src/backends/onnxruntime/native-session.mjs';
import { arg } from '../args';
import { recordedSteps, rebuildBatches } from './replay';
import { benchAsks } from './workload';

const SEQUENCES = Number(arg('--sequences', '8'));
const REQUESTS = Number(arg('--requests', '800'));
const ROUNDS = Number(arg('--rounds', '3'));
const BLOCK_TOKENS = 16;

const requests: GenRequest[] = benchAsks({ count: REQUESTS, seed: 52, prompt: [8, 32], short: [4, 16], long: [64, 160], longShare: 0.25 }).map((a, i) => ({
  id: `r${i}`,
  prompt: [...new TextEncoder().encode(a.text)],
  maxTokens: a.maxTokens,
}));
const knobs = { maxNumSequences: SEQUENCES, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict' as const, totalBlocks: 8192, blockTokens: BLOCK_TOKENS };
const cost = stepCostCalibration('tiny_lm_generate')!.fits.continuous.cost;
const run = simulateGeneration({ knobs, cost, batching: 'continuous', arrivals: [], closedLoop: { concurrency: SEQUENCES * 4, requests, gapUs: 0 } });
const { batches, totalBlocks } = rebuildBatches(recordedSteps(run.events), BLOCK_TOKENS);

const binding = loadNativeBinding();
if (!binding) throw new Error("this onnxruntime-node has no native session (the server's worker would not host the loop either)");
const session = new NativeSession(binding, readFileSync(new URL('../../model_repository/tiny_lm_generate/1/model.onnx', import.meta.url).pathname), { intraOpNumThreads: 1, interOpNumThreads: 1 });
const store = new KvBlockStore(TINY_LM_KV_SHAPE, BLOCK_TOKENS, totalBlocks);

type Calls = { rows: number[]; padRows: number }[];
/** the baseline: every decode row in one call, the prefill rows in another */
function oneDecodeCall(b: StepBatch): Calls {
  const decode = b.rows.flatMap((r, i) => (r.kind === 'decode' ? [i] : []));
  const prefill = b.rows.flatMap((r, i) => (r.kind === 'prefill' ? [i] : []));
  return [decode, prefill].filter((g) => g.length > 0).map((rows, i) => ({ rows, padRows: i === 0 ? b.padSlots : 0 }));
}
function timedUs(b: StepBatch, calls: Calls): number {
  const t0 = performance.now();
  for (const c of calls) {
    const step = buildKvStep(store, c.rows.map((i) => b.rows[i]!), c.padRows);
    storeKvStep(store, step, runPlainTensors(session, ort.Tensor, step.inputs));
  }
  return (performance.now() - t0) * 1000;
}

let ruled = 0;
let single = 0;
let cut = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const b of batches) {
    const rule = stepModelCalls(b);
    const one = oneDecodeCall(b);
    if (rule.length > one.length) cut++;
    if (round % 2 === 0) (ruled += timedUs(b, rule)), (single += timedUs(b, one));
    else (single += timedUs(b, one)), (ruled += timedUs(b, rule));
  }
}
session.release();
const per = (us: number) => (us / ROUNDS / batches.length).toFixed(0);
console.log(
  `${SEQUENCES} sequence slots, ${batches.length} steps x ${ROUNDS} rounds: decode rows cut by context ${per(ruled)} µs a step, in one call ${per(single)} µs ` +
    `(x${(single / ruled).toFixed(3)}); ${((100 * cut) / ROUNDS / batches.length).toFixed(1)}% of the steps cut`,
);
