// The autotuning lesson's numbers (teach/autotune-day.ts): the uneven day through core's simulator with a
// static delay and autotuned, on the shipped MLP calibration. At 3 ms the tuner keeps every phase within
// the target and spends less instance time per request than any static delay of the lesson's knob that
// also keeps every phase within it; no static delay is right all day.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseModelConfig } from '@inferscope/core/config';
import { LIVE_LIMITS } from '@inferscope/core/live-config';
import { compareDay, dayComputeUs, meetsTarget, MLP_BATCHING, RUSH_PER_S, runDay, STATIC_DELAYS_US, TARGETS_MS, UNEVEN_DAY } from '../src/teach/autotune-day';

const statics = STATIC_DELAYS_US.map((d) => ({ delay: d, run: runDay({ delayUs: d }) }));

test('the knob offers the issue\'s steps, each one within the live limits', () => {
  assert.deepEqual(STATIC_DELAYS_US, [0, 500, 2000, 8000]);
  const l = LIVE_LIMITS.max_queue_delay_microseconds;
  for (const d of STATIC_DELAYS_US) assert.ok(d >= l.min && d <= l.max && d % l.step === 0, String(d));
  assert.deepEqual(TARGETS_MS, [1.2, 3]);
  assert.deepEqual(UNEVEN_DAY.phases.map((p) => ('rate' in p ? p.rate : 0)), [300, RUSH_PER_S, 300]);
});

test('the autotuned run starts from the shipped config\'s batching', () => {
  const shipped = parseModelConfig(readFileSync(new URL('../../../model_repository/mlp_classifier/config.pbtxt', import.meta.url), 'utf8'));
  assert.equal(shipped.max_batch_size, MLP_BATCHING.max_batch_size);
  assert.deepEqual(shipped.dynamic_batching?.preferred_batch_size, MLP_BATCHING.preferred_batch_size);
  assert.equal(Number(shipped.dynamic_batching?.max_queue_delay_microseconds), MLP_BATCHING.max_queue_delay_microseconds);
});

test('no single static delay is right all day: short is costly in the rush, long is slow when quiet', () => {
  const at = (d: number) => statics.find((s) => s.delay === d)!.run;
  assert.ok(at(0).phases[0].p99_us < at(8000).phases[0].p99_us / 5);
  assert.ok(at(8000).phases[1].compute_per_request_us < at(0).phases[1].compute_per_request_us / 2);
  assert.ok(at(0).avgBatch < at(8000).avgBatch);
});

test('3 ms: the tuner keeps p99 within the target in every phase and costs less per request than the static delays that also do', () => {
  const target = 3000;
  const tuned = runDay({ targetUs: target });
  const table = tuned.phases.map((p) => `${p.label}: p99 ${p.p99_us} µs, ${p.compute_per_request_us} µs/req, delay ${p.delay_us}`).join('; ');
  assert.ok(meetsTarget(tuned.phases, target), table);
  const meeting = statics.filter((s) => meetsTarget(s.run.phases, target));
  assert.ok(meeting.length > 0, 'some static delay of the knob meets 3 ms');
  assert.ok(meeting.length < statics.length, 'and some does not');
  for (const s of meeting) assert.ok(dayComputeUs(tuned.phases) < dayComputeUs(s.run.phases), `delay ${s.delay}: ${dayComputeUs(s.run.phases)} vs ${dayComputeUs(tuned.phases)} (${table})`);
  // the rush takes bigger batches than any static delay that meets the target gives it
  for (const s of meeting) assert.ok(tuned.phases[1].compute_per_request_us < s.run.phases[1].compute_per_request_us);
});

test('1.2 ms: no static delay of the knob holds every phase with one instance; the tuner does, adding one for the rush and taking it back', () => {
  const c = compareDay(500, 1.2);
  assert.ok(statics.every((s) => !meetsTarget(s.run.phases, 1200)));
  assert.ok(c.tuned.phases.every((p) => p.p99_us <= 1200 * 1.05), c.tuned.phases.map((p) => p.p99_us).join(','));
  assert.equal(c.tuned.instanceChanges, 2);
});

test('the comparison follows the knobs: another delay, another static column; the tuned side stays', () => {
  const a = compareDay(0, 3);
  const b = compareDay(8000, 3);
  assert.notDeepEqual(a.fixed.phases.map((p) => p.p99_us), b.fixed.phases.map((p) => p.p99_us));
  assert.deepEqual(a.tuned.phases, b.tuned.phases);
  assert.deepEqual(a.fixedWithin, a.fixed.phases.map((p) => p.p99_us <= 3000));
  assert.equal(a.tunedComputeUs, dayComputeUs(a.tuned.phases));
});
