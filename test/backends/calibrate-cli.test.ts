/** `inferscope calibrate` on a real model writes a valid table that simulate can use. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calibrate from '../../apps/server/src/cli/commands/calibrate';
import { validateCalibration, costFromCalibration, baseLatencyUs } from '@inferscope/core/sim/index.ts';
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
