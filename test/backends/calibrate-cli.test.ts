/** `inferscope calibrate` on a real model writes a valid table that simulate can use. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stallsBeyondCollections } from '../../apps/server/src/calibration/stall-probe';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calibrate from '../../apps/server/src/cli/commands/calibrate';
import { validateCalibration, costFromCalibration, baseLatencyUs } from '@inferscope/core/sim/index.ts';
import { REPO } from './fixtures';
import { measureGcProfile } from '../../apps/server/src/calibration/gc-probe';

test('calibrate measures text_encoder at batch 1..64 on onnxruntime and writes its table', async () => {
  const out = mkdtempSync(join(tmpdir(), 'calibrate-'));
  const log = console.log;
  const err = console.error;
  console.log = () => undefined;
  console.error = () => undefined;
  try {
    assert.equal(await calibrate.run(['--model-repository', REPO, '--model', 'text_encoder', '--out', out, '--min-ms', '1']), 0);
  } finally {
    console.log = log;
    console.error = err;
  }
  const cal = validateCalibration(JSON.parse(readFileSync(join(out, 'text_encoder.json'), 'utf8')));
  assert.equal(cal.model, 'text_encoder');
  assert.deepEqual(Object.keys(cal.table_us).map(Number), [1, 2, 4, 8, 12, 16, 24, 32, 48, 64]);
  assert.deepEqual(Object.keys(cal.session_us ?? {}).length, 10);
  assert.match(cal.method, /variable dims = 16/);
  assert.equal(baseLatencyUs(costFromCalibration(cal), 64), cal.table_us['64']);
  // the wake of an idle instance while the main thread spins: measured, and what the simulator draws from
  // when asked to (opt-in: see costFromCalibration)
  assert.ok(cal.spin_wake_us && Object.keys(cal.spin_wake_us).length >= 2, 'spin_wake_us measured');
  assert.deepEqual(costFromCalibration(cal, 0, true, true).spin_wake_us, cal.spin_wake_us);
  assert.equal(costFromCalibration(cal).spin_wake_us, undefined, 'off unless asked');
  // the main thread's wake-up for an answer: measured (>= 0), and in the cost where the spread is
  assert.ok(typeof cal.answer_wake_us === 'number' && cal.answer_wake_us >= 0, 'answer_wake_us measured');
  // two in flight: every size's cycle, never above the batch sent on its own, carried into the cost
  assert.deepEqual(Object.keys(cal.held_us ?? {}), Object.keys(cal.table_us));
  for (const [b, us] of Object.entries(cal.held_us!)) assert.ok(us > 0 && us <= cal.table_us[b], `held at ${b}: ${us} vs ${cal.table_us[b]}`);
  assert.deepEqual(costFromCalibration(cal).held_table, cal.held_us);
  assert.deepEqual(costFromCalibration(cal, 0, false).held_table, cal.held_us, 'not noise: teaching mode keeps it');
  assert.equal(costFromCalibration(cal).answer_wake_us, cal.answer_wake_us);
  assert.equal(costFromCalibration(cal, 0, false).answer_wake_us, undefined, 'teaching mode (no spread): none');
  assert.equal(costFromCalibration(cal, 0, false).spin_wake_us, undefined, 'spread off: the median table alone');
  rmSync(out, { recursive: true, force: true });
});

test('the GC probe counts the collections a drive causes, per request', async () => {
  let keep: number[][] = [];
  const gc = await measureGcProfile(async () => {
    for (let i = 0; i < 2000; i++) {
      keep.push(Array.from({ length: 2000 }, (_, j) => j)); // ~16 KB a request, a young generation's worth many times over
      if (keep.length > 50) keep = [];
      if (i % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    return 2000;
  });
  assert.ok(gc, 'collections seen');
  assert.ok(gc.requests_per_gc >= 1 && gc.requests_per_gc < 2000, `requests per collection: ${gc.requests_per_gc}`);
  assert.ok(gc.pause_us['0.5'] >= 0);
  assert.equal(await measureGcProfile(async () => 0), undefined, 'no requests: no profile');
});

test('calibrate refuses bad options with the help text', async () => {
  const err = console.error;
  console.error = () => undefined;
  try {
    assert.equal(await calibrate.run(['--min-ms', 'x']), 2);
    assert.equal(await calibrate.run(['--bogus']), 2);
  } finally {
    console.error = err;
  }
});

test('the stall probe leaves its own garbage collections out: only what they do not cover is the host\'s', () => {
  const turns = [{ start: 10, end: 11 }, { start: 20, end: 20.5 }, { start: 30, end: 30.25 }];
  // the first turn: 0.9 of its 1 ms a collection; the second: 0.1 ms of its 0.5; the third: none
  const gcs = [{ start: 10.05, end: 10.95 }, { start: 20.4, end: 20.6 }];
  const stalls = stallsBeyondCollections(turns, gcs).map((us) => Math.round(us));
  assert.deepEqual(stalls, [400, 250], 'a turn a collection filled is no stall; the rest of one is');
});
