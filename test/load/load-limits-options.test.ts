import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LOAD_LIMITS } from '@inferscope/core/load';
import { parseServeArgs } from '../../apps/server/src/server-options.ts';
import { resolveScenario } from '../../apps/server/src/loadgen/scenario-resolver.ts';

test('the load limits are configurable with serve flags, checked, and applied to startLoad', () => {
  assert.deepEqual(parseServeArgs(['--model-repository', 'm']).loadLimits, DEFAULT_LOAD_LIMITS);
  const o = parseServeArgs(['--model-repository', 'm', '--load-max-rate', '50', '--load-max-requests=1000', '--load-max-in-flight', '8']);
  assert.deepEqual(o.loadLimits, { max_rate_per_s: 50, max_requests_per_run: 1000, max_in_flight: 8 });
  assert.throws(() => parseServeArgs(['--model-repository', 'm', '--load-max-rate', '0']), /--load-max-rate must be an integer >= 1/);
  assert.throws(() => parseServeArgs(['--model-repository', 'm', '--load-max-in-flight', 'x']), /--load-max-in-flight must be a number >= 0 \(plain digits and a decimal point\), got 'x'/);
  const req = { model: 'mlp', scenario: 'steady', rate: 100, duration: 5 };
  assert.doesNotThrow(() => resolveScenario(req, DEFAULT_LOAD_LIMITS));
  assert.throws(() => resolveScenario(req, o.loadLimits), /peak rate is 100 requests\/s, above the 50\/s/);
  assert.throws(() => resolveScenario({ ...req, rate: 50, duration: 30 }, o.loadLimits), /about 1,500 requests, more than the 1,000/);
  assert.throws(() => resolveScenario({ ...req, scenario: 'closed-loop', concurrency: 9 }, o.loadLimits), /concurrency 9 is above the 8/);
});
