/**
 * Load on a stateful model: every load path (HTTP from the generator, in process) sends the accumulator
 * sequences with START and END, as perf_analyzer would, so a run on it is answered instead of refused
 * request by request ("must specify the START flag"), and the sequences it leaves open time out alone.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { findPreset, planArrivals } from '@inferscope/core/load';
import { RealClock } from '@inferscope/core/clock';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';
import { runPlan } from '../../apps/server/src/loadgen/runner.ts';
import { HttpTarget, InProcessTarget } from '../../apps/server/src/loadgen/targets.ts';

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };

before(async () => {
  repo = await tempRepository(['accumulator']);
  server = await startTestServer({ modelRepositories: [repo.dir], live: false });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

const plan = () => planArrivals(findPreset('poisson')!, { rate: 200, duration_s: 0.5, seed: 3, model: 'accumulator' });

test('a load run over HTTP on a stateful model sends sequences: every request answered', async () => {
  const target = new HttpTarget({ url: server.url, binary: true });
  try {
    const r = await runPlan(target, plan(), { clock: new RealClock(), model: 'accumulator' });
    assert.ok(r.sent > 20, `sent ${r.sent}`);
    assert.equal(r.errors, 0, JSON.stringify(r.summary));
  } finally {
    target.close();
  }
});

test('a load run in process on a stateful model sends sequences too', async () => {
  const target = new InProcessTarget(server.built.manager);
  const r = await runPlan(target, plan(), { clock: new RealClock(), model: 'accumulator' });
  assert.ok(r.sent > 20, `sent ${r.sent}`);
  assert.equal(r.errors, 0, JSON.stringify(r.summary));
});
