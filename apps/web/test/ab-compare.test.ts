import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControlMessage, LoadProgress, StatsMessage } from '@inferscope/core';
import { otherLoadWarning, restoreFor, runAbCompare, summarise } from '../src/controls/ab-compare';
import { parseKnobPatch } from '@inferscope/core/live-config';

const stat = (t: number, delay: number, completed: number): StatsMessage => ({
  t, wall_ms: t, models: [{
    model: 'm', version: '1', window_s: 1, throughput_per_s: delay > 0 ? 900 : 500, requests_per_s: 100,
    latency_us: { p50: delay + 100, p90: delay + 200, p99: delay + 300, mean: delay + 150 }, queue_us_mean: delay, compute_us_mean: 100,
    avg_batch_size: delay > 0 ? 8 : 1, batch_size_histogram: {}, queue_depth: {}, in_flight: 1,
    totals: { completed, rejected: 0, failed: 0, batches: 0 }, memory_bytes: 0,
  }],
});

test('summarise averages busy seconds and counts completions as a difference of totals', () => {
  const side = summarise([stat(1, 0, 10), stat(2, 0, 110)], 'm', '1');
  assert.equal(side.throughput, 500);
  assert.equal(side.completed, 100);
  assert.equal(side.p99Us, 300);
});

test('A/B runs A then B on the same seed and restores the original delay, even when B fails', async () => {
  const sent: ControlMessage[] = [];
  let delay = 0;
  let runs = 0;
  const stats: StatsMessage[] = [];
  let clock = 1000;
  const deps = {
    async send(msg: ControlMessage) {
      sent.push(msg);
      if (msg.action === 'setDynamicBatching') delay = msg.max_queue_delay_microseconds ?? delay;
      if (msg.action === 'startLoad') {
        runs++;
        if (runs === 2) return { ok: false as const, error: 'no such scenario', code: 'NOT_FOUND' as const };
        stats.push(stat(clock + 1, delay, 0), stat(clock + 2, delay, 50));
        return { ok: true as const, id: `L${runs}` };
      }
      return { ok: true as const };
    },
    progress: (id: string): LoadProgress => ({ id, model: 'm', scenario: 's', state: 'done', sent: 1, answered: 1, errors: 0, elapsed_s: 1, duration_s: 1 }),
    statsSince: (ms: number) => stats.filter((s) => s.wall_ms >= ms),
    sleep: async () => { clock += 1; },
  };
  const realNow = Date.now;
  Date.now = () => clock;
  try {
    await assert.rejects(runAbCompare(deps, { model: 'm', version: '1', scenario: 's', rate: 10, duration: 1, seed: 3, a: { max_queue_delay_microseconds: 0 }, b: { max_queue_delay_microseconds: 5000 }, restore: { max_queue_delay_microseconds: 777 } }), /B: no such scenario/);
  } finally {
    Date.now = realNow;
  }
  const loads = sent.filter((m) => m.action === 'startLoad');
  assert.equal(loads.length, 2);
  assert.ok(loads.every((m) => m.action === 'startLoad' && m.seed === 3));
  assert.ok(loads.every((m) => m.action === 'startLoad' && m.version === '1'), 'the load goes to the version being compared');
  const last = sent.at(-1)!;
  assert.equal(last.action, 'setDynamicBatching');
  assert.equal(delay, 777);
});

test('the load panel aims startLoad at the picked version (open loop at a rate, or closed loop)', async () => {
  const { startLoadMessage } = await import('../src/controls/load-message');
  const form = { scenario: 'steady', seed: 7, record: false, duration: 5, rate: 300, concurrency: 0 };
  assert.deepEqual(startLoadMessage({ name: 'm', version: '2' }, form), {
    action: 'startLoad', model: 'm', version: '2', scenario: 'steady', seed: 7, record: false, duration: 5, rate: 300,
  });
  const closed = startLoadMessage({ name: 'm', version: '3' }, { ...form, concurrency: 4 });
  assert.equal(closed.action === 'startLoad' && closed.version, '3');
  assert.equal(closed.action === 'startLoad' && closed.concurrency, 4);
  assert.equal('rate' in closed, false);
});

test('A/B patches take any live field, restore exactly what they touched, and flag other traffic', async () => {
  // the dashboard's A/B reads core's one patch grammar (the CLI's too: test/load/cli.test.ts)
  assert.deepEqual(parseKnobPatch('delay=2000 preferred=8,16 instances=2'), { max_queue_delay_microseconds: 2000, preferred_batch_size: [8, 16], instance_count: 2 });
  assert.deepEqual(parseKnobPatch('500'), { max_queue_delay_microseconds: 500 });
  assert.throws(() => parseKnobPatch('colour=red'), /unknown field 'colour'/);
  assert.throws(() => parseKnobPatch('max_batch=-1'), /'max_batch_size' must be between 1 and/);
  const live: Record<string, unknown> = { max_queue_delay_microseconds: 100, preferred_batch_size: [4], max_batch_size: 32, instance_count: 1 };
  assert.deepEqual(restoreFor([{ instance_count: 2 }, { max_batch_size: 16 }], (f) => live[f]), { instance_count: 1, max_batch_size: 32 });
  assert.throws(() => restoreFor([{ preserve_ordering: true }], (f) => live[f]), /'preserve_ordering' is not set in the model's config/);
  const sent: ControlMessage[] = [];
  const deps = {
    async send(msg: ControlMessage) {
      sent.push(msg);
      return msg.action === 'startLoad' ? { ok: true as const, id: 'L' } : { ok: true as const };
    },
    progress: (id: string): LoadProgress => ({ id, model: 'm', scenario: 's', state: 'done', sent: 10, answered: 10, errors: 0, elapsed_s: 1, duration_s: 1 }),
    statsSince: () => [stat(1, 0, 0), stat(2, 0, 100)],
    sleep: async () => {},
  };
  const { sides: [a] } = await runAbCompare(deps, { model: 'm', version: '1', scenario: 's', rate: 10, duration: 1, seed: 3, a: { instance_count: 2 }, b: { max_batch_size: 16 }, restore: { instance_count: 1, max_batch_size: 32 } });
  assert.deepEqual(sent.map((m) => m.action), ['setInstanceCount', 'startLoad', 'setDynamicBatching', 'startLoad', 'setDynamicBatching', 'setInstanceCount']);
  assert.equal(a.otherRequests, 90, '100 served, 10 were ours');
  assert.match(otherLoadWarning(a) ?? '', /90 requests from other clients/);
  assert.equal(a.runs[0].series?.length, 2);
});

test('A/B rounds interleave A, B, A, B on one seed, restore once at the end, and judge by the rounds\' spread', async () => {
  const sent: ControlMessage[] = [];
  let delay = 0;
  const stats: StatsMessage[] = [];
  let clock = 1000;
  let run = 0;
  // B (delay 5000) serves more per second in every round; its p99 overlaps A's over the rounds
  const p99ByRun = [300, 5000, 9000, 5200, 400, 5100];
  const deps = {
    async send(msg: ControlMessage) {
      sent.push(msg);
      if (msg.action === 'setDynamicBatching') delay = msg.max_queue_delay_microseconds ?? delay;
      if (msg.action === 'startLoad') {
        const s = stat(clock + 1, delay, 0);
        s.models[0].latency_us.p99 = p99ByRun[run++];
        stats.push(s, stat(clock + 2, delay, 50));
        stats[stats.length - 1].models[0].latency_us.p99 = s.models[0].latency_us.p99;
        return { ok: true as const, id: `L${run}` };
      }
      return { ok: true as const };
    },
    progress: (id: string): LoadProgress => ({ id, model: 'm', scenario: 's', state: 'done', sent: 50, answered: 50, errors: 0, elapsed_s: 1, duration_s: 1 }),
    statsSince: (ms: number) => stats.filter((s) => s.wall_ms >= ms),
    sleep: async () => { clock += 10; }, // past this run's stats, so the next run sees only its own
  };
  const realNow = Date.now;
  Date.now = () => clock;
  let result;
  try {
    result = await runAbCompare(deps, { model: 'm', version: '1', scenario: 's', rate: 10, duration: 1, seed: 3, rounds: 3, a: { max_queue_delay_microseconds: 0 }, b: { max_queue_delay_microseconds: 5000 }, restore: { max_queue_delay_microseconds: 777 } });
  } finally {
    Date.now = realNow;
  }
  const delays = sent.filter((m) => m.action === 'setDynamicBatching').map((m) => m.action === 'setDynamicBatching' && m.max_queue_delay_microseconds);
  assert.deepEqual(delays, [0, 5000, 0, 5000, 0, 5000, 777], 'interleaved, restored once at the end');
  assert.equal(result.rounds, 3);
  assert.deepEqual(result.sides.map((s) => s.runs.length), [3, 3]);
  assert.deepEqual(result.sides[0].spread.p99_us, { median: 400, min: 300, max: 9000 });
  const better = Object.fromEntries(result.verdicts.map((v) => [v.metric, v.better]));
  assert.equal(better.throughput_per_s, result.sides[1].label, 'every B round beat every A round');
  assert.equal(better.p99_us, null, 'ranges overlap: within noise, no winner');
  assert.equal(result.sides[0].completed, 150, 'completions summed over the rounds');
});

test('one A/B round has no spread and so no winner, however large the gap', async () => {
  const { abVerdicts, sideOfRuns } = await import('../src/controls/ab-rounds');
  const run = (throughput: number) => ({ throughput, p50Us: 1, p99Us: 1, avgBatch: 1, rejected: 0, completed: 1 });
  const v = abVerdicts(sideOfRuns('A', [run(100)]), sideOfRuns('B', [run(900)]), 1);
  assert.ok(v.every((x) => x.better === null));
});
