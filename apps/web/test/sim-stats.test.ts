import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSimulation } from '@inferscope/core/sim';
import { SimStats } from '../src/teach/sim-stats';
import { toCoreScenario } from '../src/teach/engine';
import { LESSONS } from '../src/teach/lessons';

test("teaching-mode aggregates: rates, latency and in-flight agree with Little's law on average", () => {
  const scenario = LESSONS.find((l) => l.id === 'operations')!.scenario(5);
  const m = scenario.models[0];
  const sim = createSimulation({
    scenario: toCoreScenario({ ...scenario, traffic: { ...scenario.traffic, durationUs: 2_000_000 } }),
    configs: [{ ...m.config, name: m.name }],
    cost: { [m.name]: m.cost },
    seed: 5,
  });
  sim.runToEnd();
  const stats = new SimStats(200_000);
  let next = 100_000;
  const inFlight: number[] = [];
  const predicted: number[] = [];
  let last;
  for (const e of sim.events) {
    while (e.t >= next && next < 1_900_000) {
      const a = stats.snapshot(next).models.find((x) => x.model === m.name);
      last = a;
      if (a && a.requests_per_s > 0) {
        inFlight.push(a.in_flight);
        predicted.push(a.requests_per_s * (a.latency_us.mean / 1e6));
      }
      next += 10_000;
    }
    stats.add(e);
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(inFlight.length > 100);
  assert.ok(last);
  assert.ok(Math.abs(last.requests_per_s - 5000) < 800, `rate ${last.requests_per_s}`);
  assert.ok(last.avg_batch_size >= 1 && last.latency_us.p99 >= last.latency_us.p50);
  // sampled in-flight counts average out to rate x latency
  assert.ok(Math.abs(mean(inFlight) - mean(predicted)) < 0.35 * mean(predicted) + 0.2, `measured ${mean(inFlight)} vs predicted ${mean(predicted)}`);
});

test("window figures: Little's law holds over a 100 ms window, and the throughput bound is never below the measured throughput", async () => {
  const { applyKnobs } = await import('../src/teach/knobs');
  const scenario = applyKnobs(LESSONS.find((l) => l.id === 'batching')!.scenario(2), { delay: 2000 });
  const m = scenario.models[0];
  const sim = createSimulation({
    scenario: toCoreScenario({ ...scenario, traffic: { ...scenario.traffic, durationUs: 2_000_000 } }),
    configs: [{ ...m.config, name: m.name }], cost: { [m.name]: m.cost }, cores: 2, seed: 2,
  });
  sim.runToEnd();
  const stats = new SimStats(100_000);
  let next = 100_000;
  let checked = 0;
  for (const e of sim.events) {
    while (e.t >= next && next < 1_900_000) {
      stats.snapshot(next);
      const f = stats.windowFigures(`${m.name}:1`)!;
      const littlePredicted = (f.requests / f.window_us) * f.mean_latency_us;
      assert.ok(Math.abs(littlePredicted - f.mean_in_flight) <= 0.1 * f.mean_in_flight + 0.2, `${littlePredicted} vs ${f.mean_in_flight} at ${next}`);
      const measured = f.samples / f.window_us;
      const bound = (1 * f.samples) / f.busy_us; // one instance
      assert.ok(bound >= measured, `bound ${bound} >= measured ${measured}`);
      checked++;
      next += 100_000;
    }
    stats.add(e);
  }
  assert.ok(checked > 10);
});
