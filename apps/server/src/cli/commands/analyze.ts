/**
 * `inferscope analyze`: Model Analyzer's job (find the best serving config under a latency budget) on a
 * running server, without reloads: each config is applied live and driven with identical traffic.
 */
import { writeFileSync } from 'node:fs';
import type { SaveConfigAck } from '@inferscope/core';
import { reportingErrors, type Command } from '../command';
import type { StepMode } from '../../clients/perf/step-load';
import { HttpTarget } from '../../loadgen/targets';
import { normaliseUrl, numberArg, parseArgs } from '../../args/args';
import { parseBytes } from '../../memory/ledger';
import { CONTROL_TOKEN_ENV } from '../../control/security';
import { connectLiveTarget } from '../../clients/analyze/live-target';
import { describeConfig, parseList, parsePreferred, type SweepConfig } from '../../clients/analyze/search-space';
import { originalConfig, planConfigs, runAnalysis } from '../../clients/analyze/analysis';
import { recommendationLine, toCsv, toHtml, toText, type ReportMeta } from '../../clients/analyze/report';
import { searchFor } from '../../clients/analyze/sweep';

const help = `Usage: inferscope analyze -m MODEL [options]

Sweeps instance count x max_batch_size x max_queue_delay x preferred sizes on a RUNNING server: every
config is applied live (no model reload), driven with the same traffic and measured until three windows
agree within the stability percentage (perf_analyzer's rule). Prints a ranked table (best first: within
the budgets, highest throughput, then lowest p99), marks the throughput-vs-p99 Pareto set, and restores
the original config unless told to apply or save the best.

Options:
  -m, --model M               model to tune (required); -x, --model-version V for one version
  -u, --url URL               server (default http://127.0.0.1:8000)
  --control-token T           control token (or ${CONTROL_TOKEN_ENV})
  --instances LIST            instance counts, e.g. 1,2 (default: the live count)
  --max-batch LIST            max_batch_size values, at most the loaded one (default: the loaded one)
  --delay LIST                max_queue_delay_microseconds values (default 0,500,1000,2000,4000)
  --preferred LIST            preferred sizes per config: none, max (= [max_batch_size]) or 4+8 (default none,max)
  --search auto|grid|prune    auto (default): the whole grid up to 30 configs, else prune; prune skips the
                              rest of a delay line once two longer delays in a row bought no throughput at
                              a higher p99 (never for the latency budget: a longer delay can lower p99)
  --repeat N                  measure each config N times (default 1): medians, ranges, and ranks marked
                              "within noise" when a range overlaps the one above
  --concurrency N             closed-loop clients (default 16); or
  --request-rate R            open loop at R requests/s (--request-distribution constant|poisson, --seed S)
  -b, --batch-size N          samples per request (default 1)
  --measurement-interval MS   window length (default 1000)
  --stability-percentage P    windows agree within P% (default 10); --max-trials N (default 10)
  --latency-budget-ms MS      p99 limit for the ranking (and the pruning)
  --memory-budget SIZE        instance memory limit for the ranking, e.g. 512MiB
  --confirm N                 re-measure the N leaders and rank on the second figures (default 3; 0 = off):
                              the best of many noisy runs is otherwise reported at its luckiest
  --csv FILE, --html FILE     write every config of the space (skipped ones with the reason) as CSV / a
                              self-contained HTML report, with the model, version, host, load and date
When no config meets the budgets, the closest is recommended with by how much it misses (exit status 1).
  --apply-best                leave the best config live; --save-best also writes it to config.pbtxt

Example:
  inferscope analyze -m mlp_classifier --instances 1,2 --max-batch 16,32 --delay 0,1000,4000 \\
      --latency-budget-ms 10 --html sweep.html
`;

async function analyze(argv: string[]): Promise<number> {
  const a = parseArgs(argv, [
    { names: ['-m', '--model'], key: 'model' }, { names: ['-x', '--model-version'], key: 'model-version' }, { names: ['-u', '--url'], key: 'url' },
    { names: ['-b', '--batch-size'], key: 'batch-size' },
    ...['control-token', 'instances', 'max-batch', 'delay', 'preferred', 'search', 'repeat', 'concurrency', 'request-rate',
      'request-distribution', 'seed', 'measurement-interval', 'stability-percentage', 'max-trials', 'latency-budget-ms',
      'memory-budget', 'csv', 'html', 'confirm'].map((key) => ({ names: [`--${key}`], key })),
    { names: ['--apply-best'], key: 'apply-best', flag: true }, { names: ['--save-best'], key: 'save-best', flag: true },
  ]);
  if (a.positional.length) throw new Error(`unexpected argument '${a.positional[0]}'`);
  const v: Record<string, string | undefined> = {
    delay: '0,500,1000,2000,4000', preferred: 'none,max', search: 'auto', repeat: '1', 'request-distribution': 'constant', seed: '1',
    'batch-size': '1', 'measurement-interval': '1000', 'stability-percentage': '10', 'max-trials': '10', confirm: '3', ...a.values,
  };
  const applyBest = a.flags.has('apply-best');
  const saveBest = a.flags.has('save-best');
  const model = v.model;
  if (!model) throw new Error('-m MODEL is required');
  if (v.search !== 'auto' && v.search !== 'grid' && v.search !== 'prune') throw new Error(`--search must be auto, grid or prune, got '${v.search}'`);
  if (v.concurrency && v['request-rate']) throw new Error('give --concurrency or --request-rate, not both');
  const num = (text: string | undefined, what: string, min: number, integer = true) => numberArg(text, what, NaN, { integer, min });
  const dist = v['request-distribution'];
  if (dist !== 'constant' && dist !== 'poisson') throw new Error(`--request-distribution must be constant or poisson, got '${dist}'`);
  const mode: StepMode = v['request-rate']
    ? { kind: 'rate', rate: num(v['request-rate'], '--request-rate', 0.1, false), distribution: dist, seed: num(v.seed!, '--seed', 0) }
    : { kind: 'concurrency', concurrency: num(v.concurrency ?? '16', '--concurrency', 1) };
  const latencyBudgetUs = v['latency-budget-ms'] ? num(v['latency-budget-ms'], '--latency-budget-ms', 0, false) * 1000 : undefined;
  const memoryBudgetBytes = v['memory-budget'] ? parseBytes(v['memory-budget']) : undefined;
  const url = normaliseUrl(v.url);
  const token = v['control-token'] ?? process.env[CONTROL_TOKEN_ENV];
  const version = v['model-version'];

  const target = new HttpTarget({ url, binary: true, seed: 1, maxSockets: (mode.kind === 'concurrency' ? mode.concurrency : 64) + 16 });
  const live = await connectLiveTarget(target, {
    url, token, model, version, mode, batchSize: num(v['batch-size']!, '--batch-size', 1),
    measurementIntervalMs: num(v['measurement-interval']!, '--measurement-interval', 50),
    stabilityPercent: num(v['stability-percentage']!, '--stability-percentage', 0.1, false),
    maxTrials: num(v['max-trials']!, '--max-trials', 3),
  });
  try {
    const snap = await live.snapshot();
    const rows = snap.models.filter((m) => m.name === model && (!version || m.version === version));
    if (rows.length === 0) throw new Error(`model '${model}'${version ? ` version ${version}` : ''} is not loaded on ${url}`);
    const original = originalConfig(rows[rows.length - 1]);
    const configs = planConfigs(original, {
      instances: v.instances ? parseList(v.instances, '--instances', 1) : undefined,
      maxBatch: v['max-batch'] ? parseList(v['max-batch'], '--max-batch', 1) : undefined,
      delayUs: parseList(v.delay!, '--delay', 0), preferred: parsePreferred(v.preferred!),
    });
    const traffic = mode.kind === 'concurrency' ? `concurrency ${mode.concurrency}` : `${mode.distribution} ${mode.rate} req/s, seed ${mode.seed}`;
    const search = searchFor(v.search, configs.length);
    const repeat = num(v.repeat!, '--repeat', 1);
    console.log(`sweeping ${configs.length} configs of ${model} on ${url} (${traffic}, search ${search}${repeat > 1 ? `, ${repeat} measurements each` : ''})`);
    const t0 = performance.now();
    const deps = { apply: (c: SweepConfig) => live.apply(c), measure: (c: SweepConfig) => live.measure(c), log: (l: string) => console.log(l) };
    const { run, ranked, recommendation } = await runAnalysis(configs, deps, { search, repeat, latencyBudgetUs, memoryBudgetBytes, confirm: num(v.confirm!, '--confirm', 0) });
    console.log(`\nmeasured ${run.results.length}, skipped ${run.skipped.length}, in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    console.log(toText(ranked, run.skipped));
    console.log(`\n${recommendationLine(recommendation)}`);
    const served = rows[rows.length - 1];
    const meta: ReportMeta = { model, version: served.version, host: `${new URL(url).host}, ${snap.server.cpu_count} CPUs`, traffic, latencyBudgetUs, when: new Date().toISOString() };
    if (v.csv) writeFileSync(v.csv, toCsv(ranked, run.skipped, meta));
    if (v.html) writeFileSync(v.html, toHtml(ranked, meta, { skipped: run.skipped, recommendation }));
    const best = ranked.find((r) => r.rank === 1);
    if ((applyBest || saveBest) && best) {
      await live.apply(best.config);
      console.log(`\nbest config applied live: ${describeConfig(best.config)}`);
      if (saveBest) {
        console.log(describeSave(await live.send({ action: 'saveConfig', model, version })));
      }
    } else {
      await live.apply(original);
      console.log(`\noriginal config restored: ${describeConfig(original)}`);
    }
    return best ? 0 : 1;
  } finally {
    live.close();
    target.close();
  }
}

/** A save's answer for the terminal: what was written and where the user's previous file is. */
function describeSave(ack: SaveConfigAck): string {
  const notes = ack.notes.map((n) => `note: ${n}`);
  if (!ack.written) return [`nothing written: ${ack.path} already holds the live values`, ...notes].join('\n');
  const backup = ack.backup === null ? '' : ack.backupKept
    ? `; ${ack.backup} still holds your file from before the server's first save`
    : `; the previous file is kept as ${ack.backup}`;
  return [`wrote ${ack.path}${backup}`, ...notes, ...(ack.diff ? [ack.diff] : [])].join('\n');
}

const command: Command = {
  name: ['analyze'],
  summary: 'sweep serving configs live on a running server and rank them (Model Analyzer without reloads)',
  help,
  run: reportingErrors('analyze', analyze),
};
export default command;
