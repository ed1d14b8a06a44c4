/**
 * Live calibration end to end: real traffic over HTTP on a real server (port 0), then
 * GET /v2/models/{m}/calibration fits the server's own batches; the simulator with that calibration,
 * on the same trace and config, forms batches of about the size the server formed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RealClock } from '@inferscope/core/clock';
import { scenarioToArrivals, traceToScenario, type Scenario } from '@inferscope/core/load';
import { costFromCalibration, simulate, validateCalibration } from '@inferscope/core/sim';
import { HttpTarget } from '../../apps/server/src/loadgen/targets';
import { runLoad } from '../../apps/server/src/loadgen/runner';
import { startRealServer } from './real-server';

const MODEL = 'mlp_classifier';

test('a live calibration from real traffic is positive and lets the simulator reproduce the mean batch size', async () => {
  const s = await startRealServer({ models: [MODEL] });
  try {
    const served = s.manager.get(MODEL)!;
    await s.manager.setInstanceCount(MODEL, served.version, undefined, 1, 'test');
    await s.manager.updateDynamicBatching(MODEL, served.version, { max_queue_delay_microseconds: 1000 }, 'test');

    const before = await fetch(`${s.url}/v2/models/${MODEL}/calibration`);
    assert.equal(before.status, 503, 'no batches yet: nothing to fit (UNAVAILABLE)');
    assert.match(((await before.json()) as { error: string }).error, /no batches yet/);
    assert.equal((await fetch(`${s.url}/v2/models/nope/calibration`)).status, 404);
    assert.equal((await fetch(`${s.url}/v2/models/${MODEL}/calibration?kind=KIND_TPU`)).status, 400);
    const none = (await (await fetch(`${s.url}/v2/calibration`)).json()) as { calibrations: unknown[]; unavailable: { model: string; reason: string }[] };
    assert.deepEqual(none.calibrations, []);
    assert.equal(none.unavailable[0].model, MODEL);

    // requests of 1, 4 and 16 samples, a quiet phase then a busier one: batches over a range of sizes wide
    // enough that the per-item cost stands out of a loaded machine's noise
    const scenario: Scenario = {
      name: 'live-cal', seed: 5, batch_sizes: [{ value: 1, weight: 3 }, { value: 4, weight: 1 }, { value: 16, weight: 1 }],
      phases: [{ type: 'poisson', rate: 300, duration_s: 1.5 }, { type: 'poisson', rate: 1000, duration_s: 1.5 }],
    };
    const plan = scenarioToArrivals(scenario, { model: MODEL });
    const from = s.events.length;
    const target = new HttpTarget({ url: s.url, binary: true });
    const res = await runLoad(target, { open: plan.arrivals[Symbol.iterator]() }, { model: MODEL, clock: new RealClock() });
    target.close();
    assert.equal(res.summary.ok, plan.arrivals.length, `every request answered: ${JSON.stringify(res.summary.errors_by_status)}`);

    const reply = await fetch(`${s.url}/v2/models/${MODEL}/calibration`);
    assert.equal(reply.status, 200);
    const cal = validateCalibration(await reply.json());
    assert.equal(cal.source, 'live');
    assert.equal(cal.model, MODEL);
    assert.equal(cal.version, served.version);
    assert.equal(cal.kind, 'KIND_CPU');
    // the line is fitted from real batch times: on a loaded machine their noise can tilt it so far that the
    // intercept or the MLP's few µs per sample come out negative (the fit clamps each to 0), so the test
    // asks for a valid fit that costs a batch of one something, not for how the machine split it
    assert.ok(cal.fit.fixed_us >= 0 && cal.fit.per_item_us >= 0, `fit ${JSON.stringify(cal.fit)}`);
    assert.ok(cal.fit.fixed_us + cal.fit.per_item_us > 0, `a batch of one costs nothing: ${JSON.stringify(cal.fit)}`);
    assert.ok(Object.keys(cal.table_us).length >= 3, `sizes fitted: ${Object.keys(cal.table_us)}`);
    const versioned = await fetch(`${s.url}/v2/models/${MODEL}/versions/${served.version}/calibration`);
    assert.equal(versioned.status, 200);
    const all = (await (await fetch(`${s.url}/v2/calibration`)).json()) as { calibrations: { model: string; table_us: object }[]; unavailable: unknown[] };
    assert.deepEqual(all.calibrations.map((c) => c.model), [MODEL], 'the list route has the same calibration');
    assert.deepEqual(all.calibrations[0].table_us, cal.table_us);

    let batches = 0;
    let samples = 0;
    const arrived: { t: number; size: number }[] = [];
    for (const e of s.events.slice(from)) {
      if (!('model' in e) || e.model !== MODEL) continue;
      if (e.type === 'batch.formed') (batches++, (samples += e.size));
      else if (e.type === 'request.queued') arrived.push({ t: e.t, size: e.batch_size });
    }
    const realMean = samples / batches;
    // the same trace as the server received it (an HTTP client on the same cores sends some requests late)
    const received = traceToScenario({ header: { format: 'inferscope-trace', version: 1, scenario: 'received' }, arrivals: arrived.map((a, i) => ({ t_us: a.t - arrived[0].t, model: MODEL, batch_size: a.size, id: `r${i}` })) });
    const sim = simulate({
      scenario: received, configs: { ...(s.manager.get(MODEL)!.config as object), name: MODEL }, cost: costFromCalibration(cal),
      cores: cal.host.cpus, seed: 5, record: false,
    }).summary;
    const ratio = sim.avg_batch_size / realMean;
    // generous: a loaded 2-core machine moves the real side a lot; a wrong cost model is off by far more
    assert.ok(ratio > 0.5 && ratio < 2, `mean batch: simulated ${sim.avg_batch_size.toFixed(2)} vs real ${realMean.toFixed(2)}`);
  } finally {
    await s.close();
  }
});
