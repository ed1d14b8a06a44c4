/**
 * The lessons' experiments prove their claims with the calibrated simulator (the same code the page
 * runs), in both languages: batching on >= 1.5x off at an overload; delay 2 ms >= 3x the mean batch of
 * delay 0 at a moderate load, with less instance time per request and a higher p50; under overload the
 * delay barely changes throughput; MLP batching gain >= 3x, CNN compute <= 1.3x; 2 instances ~2x, 4 ~ 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { knobRows, runExperiment } from '../src/teach/experiments';
import { LESSONS, SPEEDS } from '../src/teach/lessons';
import { setLanguage, stringsFor, LANGUAGES } from '../src/i18n/strings';
import { calibrationStore, dropLiveCalibrations } from '../src/teach/calibrations';
import { appStore } from '../src/store/app-store';
import { bundledCalibration, baseLatencyUs, simulate, type Calibration } from '@inferscope/core/sim';
import { measuredCost } from '../src/teach/models';
import { toCoreScenario } from '../src/teach/engine';

const fig = (tables: ReturnType<typeof runExperiment>, id: string) => tables.find((t) => t.id === id)!.figures;

/** The experiments' claims, asserted from their figures; run on the shipped calibrations and on others. */
function assertBatchingClaims(minDelayBatchRatio = 3): void {
  const t = runExperiment('batching', 1);
  assert.ok(fig(t, 'on-off').ratio >= 1.5, `on/off ${fig(t, 'on-off').ratio}`);
  const d = fig(t, 'delay');
  assert.ok(d.batchRatio >= minDelayBatchRatio, `delay batch ratio ${d.batchRatio}`);
  assert.ok(d.busyRatio < 0.6, `instance time per request falls (${d.busyRatio})`);
  assert.ok(d.p50Delay2 > d.p50Delay0, 'and latency is the price');
  const o = fig(t, 'overload');
  assert.ok(Math.abs(o.ratio - 1) < 0.05, `under overload the delay barely matters (${o.ratio})`);
  assert.ok(o.batch0 > 2, `delay 0 still batches under overload (${o.batch0})`);
  const b = fig(t, 'bound');
  assert.ok(b.mlpGain >= 3, `MLP gain ${b.mlpGain}`);
  assert.ok(b.cnnGain <= 1.3, `CNN gain ${b.cnnGain}`);
}

function assertConcurrencyClaims(): void {
  const f = fig(runExperiment('concurrency', 1), 'instances');
  assert.ok(f.two > 1.7, `2 instances ${f.two}`);
  assert.ok(f.four < 1.1, `4 vs 2 instances ${f.four}`);
}

function assertBackendClaims(): void {
  const t = runExperiment('backends', 1);
  const light = fig(t, 'backends-light');
  const heavy = fig(t, 'backends-heavy');
  assert.ok(light.batch < 1.5 && heavy.batch > 3, `batches ${light.batch} and ${heavy.batch}`);
  assert.ok(light.server > 1 && heavy.server > 1, `through the server: ${light.server}, ${heavy.server}`);
  assert.ok(light.compute > 0.6 && light.compute < 1.6, `compute alone at batch ~1: ${light.compute}`);
  assert.ok(heavy.compute > light.compute * 1.3, `compute gap grows with the batch: ${light.compute} -> ${heavy.compute}`);
  for (const table of t) for (const r of table.rows) assert.equal(r.source, 'measured');
}

function assertSweepClaims(): void {
  const t = runExperiment('operations', 1);
  const s = fig(t, 'sweep');
  assert.ok(s.lastP99 > 10 * s.firstP99, `p99 climbs past the limit (${s.firstP99} -> ${s.lastP99})`);
  const thr = t[0].rows.map((r) => r.summary.throughput_per_s);
  assert.ok(thr[thr.length - 1] < 1.3 * thr[thr.length - 2], `throughput flattens (${thr.join(', ')})`);
}

test('lesson 3: batching on vs off, the delay at a moderate load and under overload, MLP vs CNN', () => assertBatchingClaims());
test('lesson 5: instances help up to the 2 cores, then stop', assertConcurrencyClaims);
test('lesson 4: PyTorch costs more than onnxruntime through the server; the compute gap grows with the batch', assertBackendClaims);
test('lesson 6: a sweep that finds the throughput limit', assertSweepClaims);

/** The shipped calibration as a noisier host would measure it: each quantile's distance from the median tripled. */
function noisier(model: string): Calibration {
  const cal = bundledCalibration(model)!;
  const spread = cal.spread ? Object.fromEntries(Object.entries(cal.spread).map(([q, v]) => [q, Math.max(0.05, 1 + 3 * (v - 1))])) : undefined;
  const interruptions = cal.interruptions ? { ...cal.interruptions, rate_per_s: cal.interruptions.rate_per_s * 3 } : undefined;
  return { ...cal, source: 'live', ...(spread ? { spread } : {}), ...(interruptions ? { interruptions } : {}) };
}

/** Every table's verdict is the claim's own sentence, in both languages: its figures bear the claim out. */
function assertEveryVerdictHolds(where: string): void {
  for (const lang of LANGUAGES) {
    setLanguage(lang);
    try {
      for (const id of ['batching', 'backends', 'concurrency', 'operations'] as const) {
        for (const t of runExperiment(id, 1)) {
          assert.ok(t.holds, `${where}, ${lang}: ${t.id} ${JSON.stringify(t.figures)}`);
          assert.ok(!t.verdict.startsWith(stringsFor(lang).exp.notHere), `${where}, ${lang}: ${t.verdict}`);
        }
      }
    } finally {
      setLanguage('en');
    }
  }
}

test('every lesson verdict is the claim on the shipped calibration, in both languages', () => assertEveryVerdictHolds('shipped'));

test('on a host 3x noisier the lessons keep their claims: they simulate medians, so noise does not reach them', () => {
  const live = Object.fromEntries(['mlp_classifier', 'cnn_classifier', 'mlp_classifier_torch'].map((m) => [m, noisier(m)]));
  const shipped = runExperiment('batching', 1).map((t) => t.figures);
  calibrationStore.setState((s) => ({ version: s.version + 1, live }));
  appStore.setState({ cal: 'server' });
  try {
    assert.deepEqual(runExperiment('batching', 1).map((t) => t.figures), shipped);
    assertEveryVerdictHolds('3x noisier');
  } finally {
    appStore.setState({ cal: undefined });
    dropLiveCalibrations();
  }
});

test('where the rows contradict a claim the verdict says so instead of asserting it', () => {
  // a host where a batch of n costs n batches of one: batching buys nothing
  const flat = (model: string): Calibration => {
    const cal = scaled(model, 1);
    const per = cal.table_us['1']!;
    const table = (t: Record<string, number> | undefined) => (t ? Object.fromEntries(Object.keys(t).map((b) => [b, per * Number(b)])) : undefined);
    return { ...cal, table_us: table(cal.table_us)!, fit: { fixed_us: 0, per_item_us: per }, ...(cal.session_us ? { session_us: table(cal.session_us) } : {}), ...(cal.held_us ? { held_us: table(cal.held_us) } : {}) };
  };
  const live = Object.fromEntries(['mlp_classifier', 'cnn_classifier', 'mlp_classifier_torch'].map((m) => [m, flat(m)]));
  calibrationStore.setState((s) => ({ version: s.version + 1, live }));
  appStore.setState({ cal: 'server' });
  try {
    const onOff = runExperiment('batching', 1).find((t) => t.id === 'on-off')!;
    assert.equal(onOff.holds, false, JSON.stringify(onOff.figures));
    assert.ok(onOff.verdict.startsWith(stringsFor('en').exp.notHere), onOff.verdict);
  } finally {
    appStore.setState({ cal: undefined });
    dropLiveCalibrations();
  }
});

/** A calibration as another machine would measure it: every time `k` times the shipped one. */
function scaled(model: string, k: number): Calibration {
  const cal = bundledCalibration(model)!;
  const times = (t: Record<string, number> | undefined) => (t ? Object.fromEntries(Object.entries(t).map(([b, us]) => [b, us * k])) : undefined);
  return {
    ...cal, source: 'live', table_us: times(cal.table_us)!, fit: { fixed_us: cal.fit.fixed_us * k, per_item_us: cal.fit.per_item_us * k },
    ...(cal.session_us ? { session_us: times(cal.session_us) } : {}), ...(cal.held_us ? { held_us: times(cal.held_us) } : {}),
  };
}

for (const k of [1 / 3, 3]) {
  test(`the experiments keep their claims on a machine ${k > 1 ? `${k}x slower` : `${1 / k}x faster`}: their loads follow the model's cost, not constants`, () => {
    // the page simulates with a live server's calibration when it has one (calibrations.ts)
    const live = Object.fromEntries(['mlp_classifier', 'cnn_classifier', 'mlp_classifier_torch'].map((m) => [m, scaled(m, k)]));
    calibrationStore.setState((s) => ({ version: s.version + 1, live }));
    appStore.setState({ cal: 'server' });
    try {
      // The lesson's delay stays 2 ms (its stated setting): where batches take 3x longer the moderate load
      // is a third, so 2 ms gathers fewer requests (2.3x the delay-0 batch, not 4.8x). Physics, not a bug.
      assertBatchingClaims(k > 1 ? 2 : 3);
      assertConcurrencyClaims();
      assertBackendClaims();
      assertSweepClaims();
      assertApplicationClaims();
      assertEveryVerdictHolds(`${k}x`);
    } finally {
      appStore.setState({ cal: undefined });
      dropLiveCalibrations();
    }
  });
}

test('"backend compute alone" is the session table for every batch, handed over while another computes or not', () => {
  const session = bundledCalibration('mlp_classifier')!.session_us!;
  const compute = measuredCost('mlp_classifier', 'session', 0);
  for (const held of [false, true]) assert.equal(baseLatencyUs(compute, 32, held), session['32'], `held ${held}`);
  const server = measuredCost('mlp_classifier', 'server', 0);
  assert.equal(baseLatencyUs(server, 32, true), bundledCalibration('mlp_classifier')!.held_us!['32'], 'through the server a held batch takes the held time');
});

test('same seed, same tables; verdicts follow the language', () => {
  const a = runExperiment('concurrency', 4);
  assert.deepEqual(runExperiment('concurrency', 4), a);
  setLanguage('zh');
  try {
    const zh = runExperiment('concurrency', 4);
    assert.match(zh[0].verdict, /实例/);
    assert.deepEqual(zh[0].figures, a[0].figures);
  } finally {
    setLanguage('en');
  }
});

test('every lesson builds a scenario, starts at an offered speed and has its text in every language', () => {
  for (const l of LESSONS) {
    const s = l.scenario(3);
    assert.ok(s.models.length > 0 && s.traffic.rate > 0, l.id);
    assert.ok(SPEEDS.some(([v]) => v === l.speed), `${l.id} starts at an offered speed`);
    for (const lang of LANGUAGES) {
      const t = stringsFor(lang).lessonText[l.id];
      assert.ok(t.title && t.claim && t.intro.length > 0 && t.watch.length > 0 && t.caption, `${lang} ${l.id}`);
    }
  }
});

/** Lessons 8-10 (application scenarios), asserted from a simulated half second of each. */
function assertApplicationClaims(): void {
  const run = (id: string) => {
    const sc = LESSONS.find((l) => l.id === id)!.scenario(1);
    const m = sc.models[0];
    return simulate({ scenario: toCoreScenario({ ...sc, traffic: { ...sc.traffic, durationUs: 500_000 } }), configs: [{ ...m.config, name: m.name }], cost: { [m.name]: m.cost }, cores: 2, seed: 1 });
  };
  const online = run('online').summary.latency_us.p99;
  assert.ok(online < 10_000, `online p99 ${online}`);
  const offline = run('offline').summary.avg_batch_size;
  assert.ok(offline > 60, `offline mean batch ${offline}`);
  const { events } = run('mixed');
  const pri = new Map<string, number>();
  const wait: Record<number, number[]> = { 1: [], 2: [] };
  for (const e of events) {
    if (e.type === 'request.queued') pri.set(e.request_id, e.priority);
    if (e.type === 'request.completed') wait[pri.get(e.request_id)!].push(e.queue_us);
  }
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  assert.ok(mean(wait[1]) * 20 < mean(wait[2]), `P1 ${mean(wait[1])} vs P2 ${mean(wait[2])}`);
}

test('application scenarios keep their claims: online p99 inside 10 ms, offline batches full, P1 waits far less than P2 under load', assertApplicationClaims);

test("lesson 3's knob adds a row at its own delay, between the tables' rows, on the same arrivals", () => {
  const tables = runExperiment('batching', 1);
  const rows = knobRows('batching', 1, 1000);
  assert.deepEqual(Object.keys(rows).sort(), ['delay', 'overload']);
  for (const [id, row] of Object.entries(rows)) {
    assert.equal(row.setting, 1000);
    const base = tables.find((t) => t.id === id)!.rows;
    assert.deepEqual(base.map((r) => r.setting), [0, 2000], `${id}: the table's own rows`);
    assert.equal(row.summary.requests.sent, base[0].summary.requests.sent, `${id}: the same seeded arrivals`);
  }
  // at the moderate load the batch grows with the delay: 1 ms lies between 0 and 2 ms
  const [b0, b2] = tables.find((t) => t.id === 'delay')!.rows.map((r) => r.summary.avg_batch_size);
  const b1 = rows.delay.summary.avg_batch_size;
  assert.ok(b0 < b1 && b1 < b2, `mean batch ${b0} < ${b1} < ${b2}`);
  // a row at a setting the table has already run is the same row
  assert.deepEqual(knobRows('batching', 1, 2000).delay.summary, tables.find((t) => t.id === 'delay')!.rows[1].summary);
  assert.deepEqual(knobRows('concurrency', 1, 3), {}, 'lesson 5 has a row for every instance count its knob offers');
});
