// The ensemble plan: steps from the config, and the steps a set of requested outputs needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseModelConfig } from '@inferscope/core/config';
import { buildPlan, composingModels, cycleMessage, ensembleCycle, neededSteps } from '../../apps/server/src/ensemble/plan';
import { PIPE } from './fixtures.ts';

const plan = buildPlan(parseModelConfig(PIPE));

test('plan: steps, maps, producers, latest version for -1', () => {
  assert.deepEqual(plan.steps.map((s) => [s.model, s.version, s.inputs, s.outputs]), [
    ['scale', undefined, [['x', 'IN']], [['y', 'MID']]],
    ['project', undefined, [['x', 'MID']], [['z', 'OUT']]],
    ['negate', undefined, [['x', 'IN']], [['n', 'NEG']]],
  ]);
  assert.deepEqual(plan.outputs, ['OUT', 'NEG']);
  assert.deepEqual(composingModels(parseModelConfig(PIPE)), ['scale', 'project', 'negate']);
  const pinned = buildPlan(parseModelConfig(PIPE.replace('model_name: "scale" model_version: -1', 'model_name: "scale" model_version: 3')));
  assert.equal(pinned.steps[0]!.version, '3');
});

test('plan: requested outputs prune the steps they do not depend on', () => {
  assert.deepEqual(neededSteps(plan, ['OUT', 'NEG']), [0, 1, 2]);
  assert.deepEqual(neededSteps(plan, ['OUT']), [0, 1]);
  assert.deepEqual(neededSteps(plan, ['NEG']), [2]);
  assert.deepEqual(neededSteps(plan, []), []);
});

test('ensembleCycle: the path back to the start, or undefined; deep chains cost no stack', () => {
  const graph: Record<string, string[]> = { a: ['m', 'b'], b: ['c'], c: ['a', 'm'], m: [], d: ['b'] };
  assert.deepEqual(ensembleCycle('a', (x) => graph[x]), ['a', 'b', 'c', 'a']);
  assert.equal(ensembleCycle('d', (x) => graph[x]), undefined, 'd reaches a cycle it is not on');
  assert.deepEqual(ensembleCycle('s', (x) => (x === 's' ? ['s'] : [])), ['s', 's']);
  const chain = (x: string) => { const n = Number(x); return n < 200_000 ? [String(n + 1)] : ['0']; };
  assert.equal(ensembleCycle('0', chain)?.length, 200_002);
  assert.equal(cycleMessage(['a', 'b', 'a']), 'circular dependency between ensembles: a -> b -> a');
});
