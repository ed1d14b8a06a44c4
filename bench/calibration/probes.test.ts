/** The bench's host probes: collections a drive causes, stalls beyond them, and the host figures beside a calibration. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { BUNDLED_CALIBRATIONS, validateCalibration } from '@inferscope/core/sim';
import { stallsBeyondCollections } from './stall-probe';
import { measureGcProfile } from './gc-probe';
import { calibrateWithHost, shippedHost } from './calibrate';
import { ON_TIME } from '../sim-host/real-clock-model';

const REPO = fileURLToPath(new URL('../../model_repository/', import.meta.url));

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

test('the stall probe leaves its own garbage collections out: only what they do not cover is the host\'s', () => {
  const turns = [{ start: 10, end: 11 }, { start: 20, end: 20.5 }, { start: 30, end: 30.25 }];
  // the first turn: 0.9 of its 1 ms a collection; the second: 0.1 ms of its 0.5; the third: none
  const gcs = [{ start: 10.05, end: 10.95 }, { start: 20.4, end: 20.6 }];
  const stalls = stallsBeyondCollections(turns, gcs).map((us) => Math.round(us));
  assert.deepEqual(stalls, [400, 250], 'a turn a collection filled is no stall; the rest of one is');
});

test('calibrateWithHost: the product table and, beside it, the host figures the host model needs', async () => {
  const { cal, host } = await calibrateWithHost(REPO, 'text_encoder', { seqLen: 16, minMs: 1, rounds: 1, sizes: [1, 2], session: false, mainThread: false, timer: ON_TIME });
  assert.equal(validateCalibration(cal).model, 'text_encoder');
  // the wake of an idle instance while the main thread spins, and the main thread's own wake-up: measured
  assert.ok(host.spin_wake_us && Object.keys(host.spin_wake_us).length >= 2, 'spin_wake_us measured');
  assert.ok(typeof host.answer_wake_us === 'number' && host.answer_wake_us >= 0, 'answer_wake_us measured');
  assert.deepEqual(host.timer, ON_TIME);
  assert.equal(host.parallel_cores, undefined, 'two instances only when asked');
});

test('the host figures that left the shipped calibrations load from bench/calibrations, and the shipped calibrations without them', () => {
  assert.equal(BUNDLED_CALIBRATIONS.length, 4);
  const mlp = shippedHost('mlp_classifier');
  assert.ok(mlp?.timer && mlp.spin_wake_us && mlp.gc, 'the MLP\'s host figures are kept');
  assert.equal(shippedHost('no_such_model'), undefined);
});
