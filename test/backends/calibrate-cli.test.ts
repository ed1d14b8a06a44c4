/** `inferscope calibrate` on a real model writes a valid table that simulate can use. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calibrate from '../../apps/server/src/cli/commands/calibrate';
import { validateCalibration, costFromCalibration, baseLatencyUs } from '@inferscope/core/sim';
import { REPO } from './fixtures';

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
  // what simulate and teaching mode use, and nothing of the host's own (the bench measures those)
  const written = JSON.parse(readFileSync(join(out, 'text_encoder.json'), 'utf8')) as Record<string, unknown>;
  for (const k of ['spread', 'idle_penalty_us', 'held_us', 'session_us']) assert.ok(k in written, `${k} measured`);
  for (const k of ['timer', 'stalls', 'gc', 'spin_wake_us', 'answer_wake_us', 'parallel_cores', 'main_thread_us_per_request']) assert.ok(!(k in written), `${k} is the bench's`);
  assert.deepEqual(Object.keys(written.host as object).sort(), ['cpus', 'platform', 'runtime']);
  // two in flight: every size's cycle, never above the batch sent on its own, carried into the cost
  assert.deepEqual(Object.keys(cal.held_us ?? {}), Object.keys(cal.table_us));
  for (const [b, us] of Object.entries(cal.held_us!)) assert.ok(us > 0 && us <= cal.table_us[b], `held at ${b}: ${us} vs ${cal.table_us[b]}`);
  assert.deepEqual(costFromCalibration(cal).held_table, cal.held_us);
  assert.deepEqual(costFromCalibration(cal, 0, false).held_table, cal.held_us, 'not noise: teaching mode keeps it');
  assert.equal(costFromCalibration(cal, 0, false).spread, undefined, 'spread off (teaching mode): the median table alone');
  rmSync(out, { recursive: true, force: true });
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
