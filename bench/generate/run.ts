/**
 * Continuous (in-flight) batching vs request-level batching of the same generative model, through the
 * REAL server: buildApp on 127.0.0.1 port 0 with two copies of the bundled tiny_lm_generate, one as
 * shipped (TensorRT-LLM's gpt_model_type inflight_fused_batching) and one with gpt_model_type V1
 * (TensorRT-LLM's request-level batching: a batch is formed from what waits and runs until its longest
 * member ends; its members are answered then). Same knobs otherwise (max_num_sequences, the KV cache).
 *
 * One seeded open-loop workload with MIXED output lengths (most short, some long) is sent to each in turn
 * over HTTP generate_stream; each request's time to first token (first SSE event), its latency and its
 * tokens are measured by the client. Printed per mode: output tokens/s over the run, TTFT and latency
 * p50/p90/p99; then the ratios continuous / request-level of ONE run (the machine is shared: read ratios,
 * not absolute figures).
 *
 *   npx tsx bench/generate/run.ts [--seconds 20] [--rate 12] [--seed 52] [--sequences 8]
 *       [--short 4,16] [--long 64,160] [--long-share 0.25]
 *
 * The request-level model's responses all arrive at its batch's end, so its TTFT is its latency: that
 * is the baseline's nature (as a request-level backend returns), not a measuring artefact.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '@inferscope/core/load';
import { percentileOf } from '@inferscope/core/stats';
import { buildApp } from '../../apps/server/src/app';
import { arg } from '../args';
import { readTokenStream } from '../../apps/web/src/teach/token-stream';

const SECONDS = Number(arg('--seconds', '20'));
const RATE = Number(arg('--rate', '12'));
const SEED = Number(arg('--seed', '52'));
const SEQUENCES = Number(arg('--sequences', '8'));
const [SHORT_MIN, SHORT_MAX] = arg('--short', '4,16').split(',').map(Number) as [number, number];
const [LONG_MIN, LONG_MAX] = arg('--long', '64,160').split(',').map(Number) as [number, number];
const LONG_SHARE = Number(arg('--long-share', '0.25'));
const SOURCE = new URL('../../model_repository/tiny_lm_generate', import.meta.url).pathname;
const MODES = { continuous: 'inflight_fused_batching', 'request-level': 'V1' } as const;

interface Ask {
  atMs: number;
  text: string;
  maxTokens: number;
}

/** The workload: Poisson arrivals, a prompt of 1-6 words, an output length from the short or the long range. */
function workload(): Ask[] {
  const rng = new Rng(SEED);
  const words = ['the', 'server', 'batches', 'every', 'step', 'KV', 'cache', 'tokens', 'continuous', 'InferScope'];
  const asks: Ask[] = [];
  for (let t = rng.expGapUs(RATE) / 1000; t < SECONDS * 1000; t += rng.expGapUs(RATE) / 1000) {
    const text = Array.from({ length: rng.int(1, 6) }, () => words[rng.int(0, words.length - 1)]).join(' ');
    const maxTokens = rng.next() < LONG_SHARE ? rng.int(LONG_MIN, LONG_MAX) : rng.int(SHORT_MIN, SHORT_MAX);
    asks.push({ atMs: t, text, maxTokens });
  }
  return asks;
}

interface Result {
  ttftMs: number;
  latencyMs: number;
  tokens: number;
  endMs: number;
}

async function one(url: string, ask: Ask, start: number): Promise<Result> {
  const sent = performance.now();
  const res = await fetch(url, { method: 'POST', body: JSON.stringify({ text_input: ask.text, max_tokens: ask.maxTokens }) });
  if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`);
  const read = await readTokenStream(res.body!, sent, () => performance.now(), () => undefined);
  if (read.error) throw new Error(read.error);
  const tokens = read.tokens.length;
  const first = sent + (read.tokens[0]?.atMs ?? read.endMs);
  const now = performance.now();
  return { ttftMs: first - sent, latencyMs: now - sent, tokens, endMs: now - start };
}

async function run(url: string, asks: Ask[]): Promise<{ tokensPerS: number; ttft: number[]; latency: number[] }> {
  const start = performance.now();
  const results = await Promise.all(asks.map(async (a) => {
    await new Promise((r) => setTimeout(r, Math.max(0, a.atMs - (performance.now() - start))));
    return one(url, a, start);
  }));
  const tokens = results.reduce((n, r) => n + r.tokens, 0);
  const spanS = Math.max(...results.map((r) => r.endMs)) / 1000;
  return { tokensPerS: tokens / spanS, ttft: results.map((r) => r.ttftMs), latency: results.map((r) => r.latencyMs) };
}

const q = (v: number[]) => [0.5, 0.9, 0.99].map((p) => percentileOf(v, p).toFixed(1)).join(' / ');

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'is-generate-bench-'));
  const config = await readFile(join(SOURCE, 'config.pbtxt'), 'utf8');
  for (const [mode, type] of Object.entries(MODES)) {
    const name = `gen_${mode.replace('-', '_')}`;
    await cp(join(SOURCE, '1'), join(dir, name, '1'), { recursive: true });
    const text = config
      .replace('name: "tiny_lm_generate"', `name: "${name}"`)
      .replace(/parameters \{ key: "max_num_sequences" value: \{ string_value: "\d+" \} \}/, `parameters { key: "max_num_sequences" value: { string_value: "${SEQUENCES}" } }`)
      + `parameters { key: "gpt_model_type" value: { string_value: "${type}" } }\n`;
    await writeFile(join(dir, name, 'config.pbtxt'), text);
  }
  const app = await buildApp({ host: '127.0.0.1', httpPort: 0, grpcPort: null, metricsPort: null, modelRepositories: [dir], recordingsDir: dir, live: false });
  try {
    const { url } = await app.listen();
    const asks = workload();
    const tokens = asks.reduce((n, a) => n + a.maxTokens, 0);
    console.log(`workload: ${asks.length} requests over ${SECONDS} s (poisson ${RATE}/s, seed ${SEED}), ${tokens} output tokens asked, ` +
      `${Math.round(LONG_SHARE * 100)}% long (${LONG_MIN}-${LONG_MAX}) else ${SHORT_MIN}-${SHORT_MAX}; max_num_sequences ${SEQUENCES}`);
    const figures: Record<string, Awaited<ReturnType<typeof run>>> = {};
    for (const mode of Object.keys(MODES)) {
      const f = (figures[mode] = await run(`${url}/v2/models/gen_${mode.replace('-', '_')}/generate_stream`, asks));
      console.log(`${mode.padEnd(14)} ${f.tokensPerS.toFixed(1)} output tokens/s  TTFT p50/p90/p99 ${q(f.ttft)} ms  latency p50/p90/p99 ${q(f.latency)} ms`);
    }
    const c = figures.continuous!;
    const r = figures['request-level']!;
    console.log(`ratios (continuous / request-level, one run): output tokens/s x${(c.tokensPerS / r.tokensPerS).toFixed(2)}, ` +
      `p99 TTFT x${(percentileOf(c.ttft, 0.99) / percentileOf(r.ttft, 0.99)).toFixed(2)}, p99 latency x${(percentileOf(c.latency, 0.99) / percentileOf(r.latency, 0.99)).toFixed(2)}`);
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
