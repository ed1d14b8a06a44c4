import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../apps/server/src/cli/main.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** run the CLI in-process (spawning tsx per call costs seconds on a busy machine), capturing its output */
async function cli(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => void out.push(a.join(' ') + '\n');
  console.error = (...a: unknown[]) => void err.push(a.join(' ') + '\n');
  try {
    const status = await main(['simulate', ...args]);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    console.log = log;
    console.error = error;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'inferscope-sim-'));
const pbtxt = join(dir, 'config.pbtxt');
writeFileSync(pbtxt, `name: "toy"\nbackend: "onnxruntime"\nmax_batch_size: 8\ninput [{ name: "x" data_type: TYPE_FP32 dims: [ 4 ] }]\noutput [{ name: "y" data_type: TYPE_FP32 dims: [ 2 ] }]\ndynamic_batching { max_queue_delay_microseconds: 1000 }\ninstance_group [{ count: 1 kind: KIND_CPU }]\n`);

test('simulate --json: summary fields, overrides, byte-identical events with the same seed', async () => {
  const ev1 = join(dir, 'e1.ndjson');
  const ev2 = join(dir, 'e2.ndjson');
  const args = ['--scenario', 'poisson', '--model-config', pbtxt, '--rate', '300', '--duration', '1', '--seed', '5', '--json', '--set', 'dynamic_batching.max_queue_delay_microseconds=2000'];
  const r1 = await cli(...args, '--events', ev1);
  assert.equal(r1.status, 0, r1.stderr);
  const s = JSON.parse(r1.stdout);
  for (const k of ['throughput_per_s', 'latency_us', 'avg_batch_size', 'batch_size_histogram', 'requests']) assert.ok(k in s, k);
  assert.deepEqual(Object.keys(s.latency_us).slice(0, 3), ['p50', 'p90', 'p99']);
  assert.ok(Math.abs(s.requests.sent - 300) < 60, `${s.requests.sent}`);
  assert.equal(s.seed, 5);
  const r2 = await cli(...args, '--events', ev2);
  assert.equal(r2.stdout, r1.stdout);
  assert.equal(readFileSync(ev1, 'utf8'), readFileSync(ev2, 'utf8'));
  const first = JSON.parse(readFileSync(ev1, 'utf8').split('\n').find((l) => l.includes('batch.formed'))!);
  assert.ok(first.oldest_wait_us <= 2000);
});

test('simulate: presets listed, clear errors for bad input', async () => {
  const list = await cli('--list-presets');
  assert.equal(list.status, 0);
  for (const n of ['steady', 'poisson', 'burst', 'ramp', 'overload']) assert.match(list.stdout, new RegExp(`^${n} `, 'm'));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ name: 's', phases: [{ type: 'poisson', rate: 'fast', duration_s: 1 }] }));
  const r = await cli('--scenario', bad, '--model-config', pbtxt);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /phases\[0\]\.rate: must be a number >= 0/);
  assert.match((await cli('--scenario', 'nope', '--model-config', pbtxt)).stderr, /neither a preset \(steady, poisson/);
  assert.match((await cli('--scenario', 'steady', '--model-config', pbtxt, '--set', 'dynamic_batching.preferred_batch_size=[64]')).stderr, /preferred size must be <= max batch size.*preferred_batch_size 64 is larger than max_batch_size 8/);
  assert.equal((await cli('--scenario', 'steady')).status, 2);
});

test('simulate: priority_levels 4294967296 (valid in Triton) runs like any other config instead of aborting', async () => {
  const huge = join(dir, 'huge-levels.pbtxt');
  writeFileSync(huge, readFileSync(pbtxt, 'utf8').replace('dynamic_batching { max_queue_delay_microseconds: 1000 }',
    'dynamic_batching { max_queue_delay_microseconds: 1000 priority_levels: 4294967296 default_priority_level: 4294967296 }'));
  const r = await cli('--scenario', 'poisson', '--model-config', huge, '--rate', '300', '--duration', '1', '--seed', '5', '--json');
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.ok(s.requests.sent > 200, JSON.stringify(s.requests));
  assert.ok(s.avg_batch_size >= 1);
});

test('simulate --calibration: a calibration file (e.g. a live server\'s) replaces the model\'s cost', async () => {
  const cal = join(dir, 'toy-calibration.json');
  const write = (us: number) => writeFileSync(cal, JSON.stringify({
    format: 'inferscope-calibration', model: 'toy', backend: 'onnxruntime', kind: 'KIND_CPU', method: 'test', source: 'live',
    host: { cpus: 2, platform: 'test', runtime: 'test' }, measured_at: '2026-12-01', table_us: { '1': us, '8': us * 2 }, fit: { fixed_us: us, per_item_us: us / 7 },
  }));
  const run = async (us: number) => {
    write(us);
    const r = await cli('--scenario', 'poisson', '--model-config', pbtxt, '--rate', '500', '--duration', '1', '--seed', '2', '--json', '--calibration', cal);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout).compute_us.mean as number;
  };
  const cheap = await run(100);
  const dear = await run(1000);
  assert.ok(dear > 5 * cheap, `compute follows the calibration: ${cheap} -> ${dear}`);
  const complete = { format: 'inferscope-calibration', model: 'other', backend: 'x', kind: 'KIND_CPU', method: 'test', host: { cpus: 2, platform: 'test', runtime: 'test' }, measured_at: '2026-12-01', table_us: { '1': 5 }, fit: { fixed_us: 5, per_item_us: 0 } };
  writeFileSync(cal, JSON.stringify(complete));
  const wrong = await cli('--scenario', 'poisson', '--model-config', pbtxt, '--calibration', cal);
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /other is not one of the models simulated/);
  // a file missing what the simulator reads (its fit, its host) or carrying a misspelt field is refused by
  // name, never a TypeError from deep inside the simulation
  for (const [broken, said] of [
    [{ ...complete, model: 'toy', fit: undefined }, /fit: is required/],
    [{ ...complete, model: 'toy', host: 'x' }, /host: must be an object/],
    [{ ...complete, model: 'toy', fit: { fixed_us: 'a', per_item_us: 1 } }, /fit\.fixed_us: must be a number/],
    [{ ...complete, model: 'toy', tabel_us: {} }, /tabel_us: unknown field/],
    [{ ...complete, model: 'toy', spread: { '0': 2, '1': 1 } }, /spread\.1: quantiles must not decrease/],
  ] as const) {
    writeFileSync(cal, JSON.stringify(broken));
    const r = await cli('--scenario', 'poisson', '--model-config', pbtxt, '--calibration', cal);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, said);
    assert.doesNotMatch(r.stderr, /Cannot read properties|TypeError/);
  }
});
