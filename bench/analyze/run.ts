/**
 * The sweep's own figures (issue: "a sweep of >= 20 configs on the bundled MLP in <= 2 minutes, and the
 * chosen config re-measured afterwards within 10% of what the sweep reported"):
 *   node --import tsx bench/analyze/run.ts [--concurrency 16]
 * Starts a server process, runs `inferscope analyze` (24 configs, pruned search, --apply-best), then
 * re-measures the applied best with `inferscope perf` on the same traffic in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg } from '../args';

const ROOT = new URL('../../', import.meta.url).pathname;
const CLI = join(ROOT, 'apps/server/bin/inferscope.mjs');
const concurrency = arg('--concurrency', '16');

function run(args: string[], onLine?: (l: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      for (const l of String(d).split('\n')) if (l) onLine?.(l);
    });
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}\n${out}`))));
  });
}

const server = spawn(process.execPath, [CLI, 'serve', '--model-repository', join(ROOT, 'model_repository'), '--model-control-mode', 'explicit',
  '--load-model', 'mlp_classifier', '--http-port', '0', '--no-metrics'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => server.stdout!.on('data', (d) => {
  const m = String(d).match(/on (http:\/\/[0-9.:]+)/);
  if (m) resolve(m[1]);
}));
try {
  const dir = mkdtempSync(join(tmpdir(), 'is-bench-analyze-'));
  const t0 = performance.now();
  await run(['analyze', '-m', 'mlp_classifier', '-x', '1', '-u', url, '--instances', '1,2', '--max-batch', '16,32,64', '--delay', '0,1000,4000',
    '--preferred', 'none,max', '--concurrency', concurrency, '--measurement-interval', '500', '--latency-budget-ms', '20',
    '--csv', join(dir, 'sweep.csv'), '--apply-best'], (l) => console.log(`  ${l}`));
  const sweepS = (performance.now() - t0) / 1000;
  const csv = readFileSync(join(dir, 'sweep.csv'), 'utf8').trim().split('\n');
  const head = csv[0].split(',');
  const best = Object.fromEntries(csv[1].split(',').map((v, i) => [head[i], v]));
  const perf = await run(['perf', '-m', 'mlp_classifier', '-x', '1', '-u', url, '--concurrency-range', concurrency, '--measurement-interval', '500', '--binary']);
  const m = perf.match(/Throughput: ([0-9.]+) infer\/sec/);
  const again = m ? Number(m[1]) : NaN;
  const reported = Number(best.throughput_per_s);
  console.log(`\nconfigs in the grid: ${csv.length - 1} measured (plus the pruned); sweep wall time ${sweepS.toFixed(1)} s`);
  console.log(`best: instances ${best.instances}, max_batch ${best.max_batch_size}, delay ${best.max_queue_delay_us} µs, preferred ${best.preferred_batch_size || 'none'}`);
  console.log(`throughput in the sweep ${reported.toFixed(0)}/s, re-measured ${again.toFixed(0)}/s: ratio ${(again / reported).toFixed(2)}`);
} finally {
  server.kill('SIGTERM');
}
