/**
 * Continuous (in-flight) batching vs request-level batching of the same generative model, through the
 * REAL server (buildApp on 127.0.0.1 port 0), measured by the product's own generative perf client
 * (apps/server/src/clients/generate: what `inferscope perf` runs on a generative model). Two copies of the
 * bundled tiny_lm_generate with the same knobs, one as shipped (gpt_model_type inflight_fused_batching)
 * and one with gpt_model_type V1 (request-level: a batch runs until its longest member ends, finished
 * members computed as padding). One seeded workload with MIXED output lengths goes to each in turn, by
 * default a closed loop with far more clients than max_num_sequences, so both are saturated.
 *
 * Printed: each mode's genai-perf figures; the ratios continuous / request-level of this one run; with
 * --limit, each mode's server tokens/s as a fraction of the model's own step loop run back-to-back on the
 * same step batches (replay.ts); the simulator's prediction of each mode's tokens/s and p99 TTFT with the
 * step cost fitted to the model's own steps (predict.ts), and its error. See README.md for every option.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { fork } from 'node:child_process';
import { cpus, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fitStepCost, stepCostCalibration, type IterEvent, type IterativeKnobs, type StepCost, type StepSample } from '@inferscope/core/iterative';
import { parseModelConfig } from '@inferscope/core/config';
import { buildApp } from '../../apps/server/src/app';
import type { GenRecord } from '../../apps/server/src/clients/generate/gen-stream';
import type { GenLoadMode } from '../../apps/server/src/clients/generate/gen-load';
import type { GenAsk } from '../../apps/server/src/clients/generate/gen-workload';
import { benchAsks } from './workload';
import { genPerfFigures, genPerfTable, type GenPerfFigures } from '../../apps/server/src/clients/generate/gen-figures';
import { TINY_LM, TINY_LM_KV_SHAPE } from '../../apps/server/src/model-generator/tiny-lm';
import { arg } from '../args';
import { rebuildBatches, recordedSteps, replay } from './replay';
import { predict, recordsOfEvents, type ServedRequest } from './predict';

const REQUESTS = Number(arg('--requests', '320'));
const WARMUP = Number(arg('--warmup', '16'));
const CONCURRENCY = Number(arg('--concurrency', '32'));
const RATE = process.argv.includes('--rate') ? Number(arg('--rate', '0')) : undefined;
const SEED = Number(arg('--seed', '52'));
const SEQUENCES = Number(arg('--sequences', '8'));
const [PROMPT_MIN, PROMPT_MAX] = arg('--prompt', '8,32').split(',').map(Number) as [number, number];
const [SHORT_MIN, SHORT_MAX] = arg('--short', '4,16').split(',').map(Number) as [number, number];
const [LONG_MIN, LONG_MAX] = arg('--long', '64,160').split(',').map(Number) as [number, number];
const LONG_SHARE = Number(arg('--long-share', '0.25'));
const LIMIT = process.argv.includes('--limit');
const WRITE_CALIBRATION = process.argv.includes('--write-calibration');
/** the load generator's nice value (0 = the server's priority, 19 = only what the server leaves) */
const CLIENT_NICE = Number(arg('--client-nice', '0'));
/** rounds of both modes, taking turns; the figures compared are each mode's medians */
const ROUNDS = Math.max(1, Number(arg('--rounds', '1')));
/** the knobs both copies are served with (and the simulator runs): written into their configs; the KV
 * blocks the server sized from them (its rule, config-knobs.ts) are read back from its events */
const BLOCK_TOKENS = 16;
const KV_TOKENS = 4096;
const MAX_NUM_TOKENS = 256;
const KNOBS: IterativeKnobs = { maxNumSequences: SEQUENCES, maxNumTokens: MAX_NUM_TOKENS, enableChunkedContext: false, policy: 'guaranteed_no_evict', blockTokens: BLOCK_TOKENS, totalBlocks: 0 };
const SOURCE = new URL('../../model_repository/tiny_lm_generate', import.meta.url).pathname;
const CALIBRATION_FILE = new URL('../../packages/core/src/iterative/calibrations/tiny_lm_generate.json', import.meta.url).pathname;
const MODES = { continuous: { type: 'inflight_fused_batching', batching: 'continuous' }, 'request-level': { type: 'V1', batching: 'static' } } as const;
type Mode = keyof typeof MODES;
const MODE: GenLoadMode = RATE !== undefined ? { kind: 'rate', rate: RATE, distribution: 'poisson', seed: SEED } : { kind: 'concurrency', concurrency: CONCURRENCY };

/** The workload: prompts of PROMPT_MIN..MAX bytes; outputs mostly short, LONG_SHARE long. */
function asks(count: number, seed: number): GenAsk[] {
  return benchAsks({ count, seed, prompt: [PROMPT_MIN, PROMPT_MAX], short: [SHORT_MIN, SHORT_MAX], long: [LONG_MIN, LONG_MAX], longShare: LONG_SHARE });
}

async function repository(dir: string): Promise<void> {
  const config = await readFile(join(SOURCE, 'config.pbtxt'), 'utf8');
  const knobs: Record<string, string> = { max_num_sequences: String(SEQUENCES), max_num_tokens: String(MAX_NUM_TOKENS), tokens_per_block: String(BLOCK_TOKENS), max_tokens_in_paged_kv_cache: String(KV_TOKENS), batch_scheduler_policy: KNOBS.policy, enable_chunked_context: 'false' };
  for (const [mode, { type }] of Object.entries(MODES)) {
    const name = modelName(mode as Mode);
    await cp(join(SOURCE, '1'), join(dir, name, '1'), { recursive: true });
    let text = config.replace('name: "tiny_lm_generate"', `name: "${name}"`);
    for (const [key, value] of Object.entries(knobs)) {
      const line = new RegExp(`parameters \\{ key: "${key}" value: \\{ string_value: "[^"]*" \\} \\}`);
      if (!line.test(text)) throw new Error(`the bundled config has no parameter ${key}`);
      text = text.replace(line, `parameters { key: "${key}" value: { string_value: "${value}" } }`);
    }
    await writeFile(join(dir, name, 'config.pbtxt'), `${text}parameters { key: "gpt_model_type" value: { string_value: "${type}" } }\n`);
  }
}

/**
 * The asks under MODE from the load generator's own process (client-process.ts), at CLIENT_NICE; the
 * records' times are on this process's clock.
 */
function load(url: string, model: string, work: GenAsk[]): Promise<GenRecord[]> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./client-process.ts', import.meta.url).pathname, { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    if (CLIENT_NICE !== 0) setPriority(child.pid!, CLIENT_NICE);
    child.once('message', (records) => resolve(records as GenRecord[]));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`the load generator exited with ${code}`)));
    child.send({ url, model, asks: work, mode: MODE, parentOrigin: performance.timeOrigin });
  });
}

const modelName = (mode: Mode) => `gen_${mode.replace('-', '_')}`;
const pct = (predicted: number, measured: number) => `${predicted >= measured ? '+' : ''}${((100 * (predicted - measured)) / measured).toFixed(1)}%`;

interface Round {
  /** as the client measured them */
  figures: GenPerfFigures;
  /** the same definitions on the server's own events (queued -> tokens -> finished): no client in them */
  server: GenPerfFigures;
}

interface Measured {
  rounds: Round[];
  /** every round's step events, in order (an idle between rounds keeps their steps apart) */
  events: IterEvent[];
  /** the requests as the server ran them (the same in every round: one seed, greedy tokens) */
  served: ServedRequest[];
}

/** The median of a figure over the rounds (a shared host's noise moves single runs by 10% and more). */
const median = (rounds: readonly Round[], of: (r: Round) => number): number => {
  const v = rounds.map(of).sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};
const tps = (f: GenPerfFigures) => f.outputTokensPerS;
const ttft99 = (f: GenPerfFigures) => f.ttftMs!.p99;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'is-generate-bench-'));
  await repository(dir);
  const measured = {} as Record<Mode, Measured>;
  const app = await buildApp({ host: '127.0.0.1', httpPort: 0, grpcPort: null, metricsPort: null, modelRepositories: [dir], recordingsDir: dir, live: false });
  try {
    const { url } = await app.listen();
    const work = asks(REQUESTS, SEED);
    console.log(`workload: ${REQUESTS} requests (+${WARMUP} warm-up), ${MODE.kind === 'concurrency' ? `closed loop of ${CONCURRENCY} clients` : `poisson ${RATE}/s`}, seed ${SEED}; ` +
      `prompts ${PROMPT_MIN}-${PROMPT_MAX} bytes; outputs ${Math.round(LONG_SHARE * 100)}% ${LONG_MIN}-${LONG_MAX} else ${SHORT_MIN}-${SHORT_MAX} tokens (${work.reduce((n, a) => n + a.maxTokens, 0)} asked); max_num_sequences ${SEQUENCES}`);
    for (const mode of Object.keys(MODES) as Mode[]) await load(url, modelName(mode), asks(WARMUP, SEED + 1));
    // the modes take turns, round after round, so a slow spell of the host falls on both
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of Object.keys(MODES) as Mode[]) {
        const events: IterEvent[] = [];
        const off = app.bus.on((e) => {
          if (e.type === 'iterative' && e.model === modelName(mode)) events.push(e.event as IterEvent);
        });
        const records = await load(url, modelName(mode), work);
        off();
        const start = Math.min(...records.map((r) => r.sentMs));
        const m = (measured[mode] ??= { rounds: [], events: [], served: records.map((r, i) => ({ prompt: [...new TextEncoder().encode(work[i]!.text)], outputTokens: r.tokenMs.length, sentMs: r.sentMs - start })) });
        const figures = genPerfFigures(records);
        const server = genPerfFigures(recordsOfEvents(events));
        m.rounds.push({ figures, server });
        m.events.push(...events);
        if (round === 1) console.log(`\n== ${mode} (${modelName(mode)}), round 1 ==\n${genPerfTable(figures)}`);
        console.log(`${mode} round ${round}: output tokens/s ${tps(figures).toFixed(1)} (server side, its events: ${tps(server).toFixed(1)}), p99 TTFT ${ttft99(figures).toFixed(1)} ms (server side ${ttft99(server).toFixed(1)})`);
        const kv = events.find((e) => e.type === 'step_started');
        if (kv?.type !== 'step_started') throw new Error(`${mode}: the server ran no step`);
        if (KNOBS.totalBlocks && kv.kv.totalBlocks !== KNOBS.totalBlocks) throw new Error(`the two copies have ${KNOBS.totalBlocks} and ${kv.kv.totalBlocks} KV blocks`);
        KNOBS.totalBlocks = kv.kv.totalBlocks;
      }
    }
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
  const c = measured.continuous.rounds;
  const r = measured['request-level'].rounds;
  const byRound = c.map((x, i) => `x${(tps(x.figures) / tps(r[i]!.figures)).toFixed(2)} / x${(ttft99(x.figures) / ttft99(r[i]!.figures)).toFixed(2)}`);
  const medTps = (rs: Round[]) => median(rs, (x) => tps(x.figures));
  const medTtft = (rs: Round[]) => median(rs, (x) => ttft99(x.figures));
  console.log(`\nratios (continuous / request-level, medians of ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}): output tokens/s x${(medTps(c) / medTps(r)).toFixed(2)} (${medTps(c).toFixed(1)} vs ${medTps(r).toFixed(1)}), ` +
    `p99 TTFT x${(medTtft(c) / medTtft(r)).toFixed(2)} (${medTtft(c).toFixed(1)} vs ${medTtft(r).toFixed(1)} ms); each round, tokens/s / p99 TTFT: ${byRound.join(', ')}`);

  /** the step cost the simulator charges each mode: the stored calibration's, or with --limit this run's */
  const stored = stepCostCalibration('tiny_lm_generate');
  let serverCost: Partial<Record<Mode, StepCost>> = stored ? { continuous: stored.fits.continuous.cost, 'request-level': stored.fits.static.cost } : {};
  let costFrom = 'the stored calibration (packages/core/src/iterative/calibrations/tiny_lm_generate.json)';
  /** with --limit: the model's own steps fitted, to show what the server's time adds to it */
  let modelCost: StepCost | undefined;
  if (LIMIT) {
    const config = parseModelConfig(await readFile(join(SOURCE, 'config.pbtxt'), 'utf8'));
    const own: StepSample[] = [];
    const fits = {} as Record<Mode, ReturnType<typeof fitStepCost>>;
    console.log('\nlimit: the model\'s own step loop back-to-back on the server\'s step batches (this process, no server)');
    for (const mode of Object.keys(MODES) as Mode[]) {
      const steps = recordedSteps(measured[mode].events);
      const { batches, totalBlocks } = rebuildBatches(steps, BLOCK_TOKENS);
      const loop = await replay(batches, totalBlocks, { modelFile: join(SOURCE, '1/model.onnx'), config, shape: TINY_LM_KV_SHAPE, blockTokens: BLOCK_TOKENS, vocab: TINY_LM.vocab });
      own.push(...loop.samples);
      fits[mode] = fitStepCost(steps.map((s, i) => ({ ...loop.samples[i]!, us: s.cycleUs })));
      // every round's steps, replayed in one loop: its tokens are every round's
      const tokens = ROUNDS * measured[mode].served.reduce((n, q) => n + q.outputTokens, 0);
      const limit = tokens / (loop.wallUs / 1e6);
      const served = median(measured[mode].rounds, (x) => tps(x.figures));
      const perStep = (us: number) => `${(us / steps.length / 1000).toFixed(2)} ms`;
      console.log(`  ${mode.padEnd(14)} ${steps.length} steps in ${(loop.wallUs / 1e6).toFixed(2)} s: ${limit.toFixed(1)} tokens/s; the server's ${served.toFixed(1)} (median) is ${(served / limit).toFixed(2)} of it` +
        ` (mean step: own loop ${perStep(loop.wallUs)}, server executor ${perStep(steps.reduce((t, x) => t + x.servedUs, 0))}, server cycle ${perStep(steps.reduce((t, x) => t + x.cycleUs, 0))})`);
    }
    const line = (what: string, f: ReturnType<typeof fitStepCost>) => console.log(`  ${what.padEnd(48)} ${JSON.stringify(f.cost)} (R² ${f.r2.toFixed(3)}, mean error ${f.meanErrorPct.toFixed(1)}% per step)`);
    const ownFit = fitStepCost(own);
    modelCost = ownFit.cost;
    line("step cost, the model's own steps (both modes):", ownFit);
    for (const mode of Object.keys(MODES) as Mode[]) line(`the server's steps, ${mode}, start to next start:`, fits[mode]);
    serverCost = { continuous: fits.continuous.cost, 'request-level': fits['request-level'].cost };
    costFrom = "this run's server steps, per mode";
    if (WRITE_CALIBRATION) {
      // The step as the server serves it (start to next start: the model, its hand-off to the instance's
      // worker thread and back, the tokens delivered), not the model alone, and per mode: what the
      // simulator and the lessons charge is meant to predict the server, and the replay's cost leaves the
      // hand-off and the streaming out.
      const fitDoc = (mode: Mode) => ({ cost: fits[mode].cost, steps: recordedSteps(measured[mode].events).length, r2: Number(fits[mode].r2.toFixed(4)), mean_error_pct: Number(fits[mode].meanErrorPct.toFixed(1)) });
      const doc = {
        model: 'tiny_lm_generate', backend: 'onnxruntime', kind: 'KIND_CPU', date: new Date().toISOString().slice(0, 10),
        host: `${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the start of the replay`,
        method: `bench/generate/run.ts --limit --write-calibration: least squares over the steps the server ran in each mode, each timed start to next start (${process.argv.slice(2).join(' ')})`,
        fits: { continuous: fitDoc('continuous'), static: fitDoc('request-level') },
      };
      await writeFile(CALIBRATION_FILE, `${JSON.stringify(doc, null, 2)}\n`);
      console.log(`  wrote ${CALIBRATION_FILE}`);
    }
  }
  console.log(`\nsimulator (simulateGeneration, same requests and ${MODE.kind === 'concurrency' ? 'closed loop' : 'arrival times'}): predicted vs measured (medians of the rounds) by the client and on the server's events`);
  const costs: [string, (mode: Mode) => StepCost | undefined][] = [[`step cost from ${costFrom}`, (mode) => serverCost[mode]], ["the model's own step cost (no server time)", () => modelCost]];
  for (const [label, costOf] of costs) {
    if (!costOf('continuous')) continue;
    console.log(`  ${label}:`);
    for (const mode of Object.keys(MODES) as Mode[]) {
      const { rounds } = measured[mode];
      const p = predict(measured[mode].served, { knobs: KNOBS, cost: costOf(mode)!, batching: MODES[mode].batching, mode: MODE, gapUs: 0 });
      const [clientTps, serverTps] = [median(rounds, (x) => tps(x.figures)), median(rounds, (x) => tps(x.server))];
      const [clientTtft, serverTtft] = [median(rounds, (x) => ttft99(x.figures)), median(rounds, (x) => ttft99(x.server))];
      console.log(`    ${mode.padEnd(14)} tokens/s predicted ${tps(p).toFixed(1)} vs client ${clientTps.toFixed(1)} (${pct(tps(p), clientTps)}), server ${serverTps.toFixed(1)} (${pct(tps(p), serverTps)}); ` +
        `p99 TTFT predicted ${ttft99(p).toFixed(1)} vs client ${clientTtft.toFixed(1)} ms (${pct(ttft99(p), clientTtft)}), server ${serverTtft.toFixed(1)} ms (${pct(ttft99(p), serverTtft)})`);
    }
  }
  if (!serverCost.continuous) console.log('  no step cost calibration: run with --limit to fit one');
}

await main();
