import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PRESETS, findPreset, scenarioToArrivals, validateScenario, ScenarioError, parseTrace, serializeTrace, traceToScenario, TraceError,
  applyOverrides, nominalRate, Rng, type Scenario,
} from '@inferscope/core/load';

test('presets: the names a class knows, all valid', () => {
  for (const name of ['steady', 'poisson', 'burst', 'ramp', 'overload', 'lunch-rush', 'mixed-priorities', 'trickle']) assert.ok(findPreset(name), name);
  for (const p of PRESETS) assert.doesNotThrow(() => validateScenario(JSON.parse(JSON.stringify(p))), p.name);
});

test('the scenario contract is one schema: what the type allows the validator accepts, and bounds are named', () => {
  const idle = [{ type: 'idle', duration_s: 1 }];
  // once refused although the type allowed them: a length choice's weights, a replayed arrival's timeout
  assert.doesNotThrow(() => validateScenario({ name: 's', shapes: { type: 'length', dims: [1, -1], length: { type: 'choice', values: [4, 8], weights: [1, 2] } }, phases: idle }));
  assert.doesNotThrow(() => validateScenario({ name: 's', phases: [{ type: 'replay', duration_s: 1, arrivals: [{ t_us: 0, batch_size: 1, timeout_us: 500, shape: [3], id: 'r1' }] }] }));
  const problems = (s: unknown) => {
    try {
      validateScenario(s);
      return [];
    } catch (err) {
      assert.ok(err instanceof ScenarioError);
      return err.problems;
    }
  };
  assert.deepEqual(problems({ name: 's', phases: [{ type: 'ramp', duration_s: 1, from: 1, to: 2e6, arrival: 'x' }] }), ['phases[0].to: must be a number <= 1000000', 'phases[0].arrival: must be one of poisson, uniform']);
  assert.deepEqual(problems({ name: 's', shapes: { type: 'length', length: { type: 'uniform', min: 5, max: 2 } }, phases: idle }), ['shapes.length: min must be <= max']);
  assert.deepEqual(problems({ name: 's', phases: [{ type: 'replay', duration_s: 1, arrivals: [{ t_us: -1, batch_size: 0, shape: [-1] }] }] }), [
    'phases[0].arrivals[0].t_us: must be a number >= 0', 'phases[0].arrivals[0].batch_size: must be an integer >= 1', 'phases[0].arrivals[0].shape[0]: must be an integer >= 0',
  ]);
  assert.deepEqual(problems({ name: 's', models: [{ value: 'a', weight: 0 }], phases: [{ type: 'burst', duration_s: 1, rate: 1, burst_size: 1, burst_every_s: 0 }] }), ['models: at least one weight must be > 0', 'phases[0].burst_every_s: must be a number > 0']);
  // a long bad trace lists a hundred problems and how many more, not every arrival
  const bad = problems({ name: 's', phases: [{ type: 'replay', duration_s: 1, arrivals: Array.from({ length: 5000 }, () => ({ t_us: 0, batch_size: 0 })) }] });
  assert.equal(bad.length, 101);
  assert.equal(bad[100], '... and 4900 more');
});

test('validation lists every problem with its path', () => {
  try {
    validateScenario({ name: '', phases: [{ type: 'poisson', rate: -1, duration_s: 1 }, { type: 'warp' }, { type: 'closed', duration_s: 1, concurrency: 0.5 }], priorities: [{ value: 0, weight: 1 }], extra: 1 });
    assert.fail('should throw');
  } catch (err) {
    assert.ok(err instanceof ScenarioError);
    const text = err.problems.join('\n');
    for (const m of ['extra: unknown field', 'name: must be a non-empty string', 'phases[0].rate: must be a number >= 0', 'phases[1].type: must be one of', 'phases[2].concurrency: must be an integer >= 1', 'priorities[0].value: must be an integer >= 1']) {
      assert.ok(text.includes(m), `missing "${m}" in\n${text}`);
    }
  }
  assert.throws(() => validateScenario([]), /must be a JSON object/);
});

test('constant phases are exact; Poisson phases have the right mean; same seed, same arrivals', () => {
  const steady = scenarioToArrivals(findPreset('steady')!);
  assert.equal(steady.arrivals.length, 1000);
  assert.equal(steady.arrivals[1].t_us - steady.arrivals[0].t_us, 10_000);
  const p = scenarioToArrivals(findPreset('poisson')!, { seed: 3 });
  assert.ok(Math.abs(p.arrivals.length - 1000) < 100, `${p.arrivals.length}`);
  assert.deepEqual(scenarioToArrivals(findPreset('poisson')!, { seed: 3 }).arrivals, p.arrivals);
  assert.notDeepEqual(scenarioToArrivals(findPreset('poisson')!, { seed: 4 }).arrivals, p.arrivals);
  assert.ok(p.arrivals.every((a, i) => i === 0 || a.t_us >= p.arrivals[i - 1].t_us));
});

test('ramp rises, bursts cluster, priorities follow the mix', () => {
  const ramp = scenarioToArrivals(findPreset('ramp')!).arrivals;
  const firstHalf = ramp.filter((a) => a.t_us < 10e6).length;
  assert.ok(ramp.length - firstHalf > 2 * firstHalf, `${firstHalf} vs ${ramp.length - firstHalf}`);
  const burst = scenarioToArrivals(findPreset('burst')!).arrivals;
  assert.ok(burst.filter((a) => a.t_us >= 2e6 && a.t_us < 2e6 + 2000).length >= 50);
  const mixed = scenarioToArrivals(findPreset('mixed-priorities')!).arrivals;
  const urgent = mixed.filter((a) => a.priority === 1).length / mixed.length;
  assert.ok(urgent > 0.15 && urgent < 0.25, `${urgent}`);
});

test('overrides: --rate scales the busiest phase, --duration stretches, closed-loop phases come back as drivers', () => {
  const lunch = findPreset('lunch-rush')!;
  assert.equal(nominalRate(lunch), 300);
  const o = applyOverrides(lunch, { rate: 600, duration_s: 15 });
  assert.equal(nominalRate(o), 600);
  assert.equal(o.phases.reduce((t, p) => t + p.duration_s, 0), 15);
  const plan = scenarioToArrivals(findPreset('closed-loop')!, { concurrency: 3 });
  assert.deepEqual(plan.closed, [{ start_us: 0, end_us: 10e6, concurrency: 3, think_us: 0 }]);
  assert.equal(plan.arrivals.length, 0);
});

test('variable-length shapes are drawn and padded to buckets', () => {
  const a = scenarioToArrivals(findPreset('variable-length')!).arrivals;
  const lengths = new Set(a.map((x) => x.shape![0]));
  assert.deepEqual([...lengths].sort((x, y) => x - y), [32, 64, 96, 128]);
});

test('trace: round trip, replay as a scenario, line-numbered errors', () => {
  const arrivals = scenarioToArrivals(findPreset('mixed-priorities')!, { duration_s: 1 }).arrivals.map((a) => ({ ...a, model: 'mlp' }));
  const text = serializeTrace({ scenario: 'mixed-priorities', seed: 42 }, arrivals);
  const trace = parseTrace(text);
  assert.equal(trace.header.format, 'inferscope-trace');
  assert.deepEqual(trace.arrivals.map((a) => [a.t_us, a.priority]), arrivals.map((a) => [a.t_us, a.priority]));
  const replay = scenarioToArrivals(traceToScenario(trace)).arrivals;
  assert.deepEqual(replay.map((a) => [a.t_us, a.model, a.priority]), arrivals.map((a) => [a.t_us, 'mlp', a.priority]));
  const fast = scenarioToArrivals(traceToScenario(trace, 2)).arrivals;
  assert.equal(fast.at(-1)!.t_us, Math.round(arrivals.at(-1)!.t_us / 2));

  const bad = (t: string, re: RegExp) => assert.throws(() => parseTrace(t), (e: unknown) => e instanceof TraceError && re.test(e.message));
  bad('{"format":"other"}\n', /^line 1: the first line must be the header/);
  bad('{"format":"inferscope-trace","version":1}\n{"t_us":5,"model":"m","batch_size":1}\nnot json\n', /^line 3: not valid JSON/);
  bad('{"format":"inferscope-trace","version":1}\n\n{"t_us":5,"model":"m","batch_size":0}\n', /^line 3: batch_size: must be an integer >= 1$/);
  // a line's every problem at once, each naming its field, worded as the scenario's (one schema for both)
  bad('{"format":"inferscope-trace","version":1}\n{"t_us":-1,"priority":1.5,"payload":1}\n', /^line 2: model: is required; payload: unknown field; t_us: must be a number >= 0; priority: must be an integer >= 0$/);
  bad('{"format":"inferscope-trace","version":1}\n{"t_us":1,"model":"m","shape":[2,-1],"timeout_us":"soon"}\n', /shape\.1: must be an integer >= 0; timeout_us: must be a number >= 0/);
  bad('{"format":"inferscope-trace","version":1}\n{"t_us":5,"model":"m"}\n{"t_us":4,"model":"m"}\n', /^line 3: t_us 4 goes back in time/);
  bad('{"format":"inferscope-trace","version":2}\n', /unsupported trace version 2/);
  // a line of many unknown fields: ten named and a count, quickly
  const many = JSON.stringify(Object.fromEntries([['t_us', 0], ['model', 'm'], ...Array.from({ length: 50_000 }, (_, i) => [`f${i}`, i])]));
  bad(`{"format":"inferscope-trace","version":1}\n${many}\n`, /^line 2: f0: unknown field; (f\d+: unknown field; ){9}\.\.\. and 49990 more$/);
  // what a replayed arrival can carry, a trace line can: a per-request timeout survives the round trip
  const timed = [{ t_us: 0, model: 'm', batch_size: 2, timeout_us: 500 }, { t_us: 10, model: 'm', batch_size: 1 }];
  assert.deepEqual(parseTrace(serializeTrace({}, timed)).arrivals, timed);
  assert.deepEqual(parseTrace('{"format":"inferscope-trace","version":1}\n{"t_us":3,"model":"m"}\n').arrivals, [{ t_us: 3, model: 'm', batch_size: 1 }], 'batch_size 1 when absent');
});

test('Rng: deterministic, uniform enough, weighted choice honours weights', () => {
  const a = new Rng(1);
  const b = new Rng(1);
  const xs = Array.from({ length: 10000 }, () => a.next());
  assert.deepEqual(xs.slice(0, 5), Array.from({ length: 5 }, () => b.next()));
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(Math.abs(mean - 0.5) < 0.02);
  const r = new Rng(9);
  let heavy = 0;
  for (let i = 0; i < 10000; i++) if (r.weighted([{ value: 'a', weight: 3 }, { value: 'b', weight: 1 }]) === 'a') heavy++;
  assert.ok(heavy > 7200 && heavy < 7800, `${heavy}`);
});

test('a scenario from JSON text runs the same as the object', () => {
  const s: Scenario = { name: 'x', seed: 5, batch_sizes: [{ value: 2, weight: 1 }], phases: [{ type: 'ramp', duration_s: 1, from: 0, to: 100, arrival: 'uniform' }] };
  const parsed = validateScenario(JSON.parse(JSON.stringify(s)));
  const arr = scenarioToArrivals(parsed).arrivals;
  assert.equal(arr.length, 50, 'uniform ramp 0->100/s over 1 s integrates to 50');
  assert.ok(arr.every((a) => a.batch_size === 2));
});
