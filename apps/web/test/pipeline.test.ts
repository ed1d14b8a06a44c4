// The dashboard's picture of an ensemble: its pipeline layout from the config, and step requests linked to
// their ensemble request by ensemble.step (counts per step, queue counts that return to zero).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerEvent, Snapshot } from '@inferscope/core';
import { LiveModel } from '../src/store/live-model';
import { pipelineOf, stepsInFlight, composingModel } from '../src/store/pipeline';

const PIPE = {
  platform: 'ensemble', max_batch_size: 8,
  output: [{ name: 'OUT' }, { name: 'NEG' }],
  ensemble_scheduling: { step: [
    { model_name: 'scale', input_map: { x: 'IN' }, output_map: { y: 'MID' } },
    { model_name: 'project', input_map: { x: 'MID' }, output_map: { z: 'OUT' } },
    { model_name: 'negate', input_map: { x: 'IN' }, output_map: { n: 'NEG' } },
  ] },
};

test('pipeline layout: columns follow the data flow, arrows from the steps read, output steps marked', () => {
  const p = pipelineOf(PIPE)!;
  assert.equal(p.columns, 2);
  assert.deepEqual(p.steps.map((s) => [s.model, s.column, s.from, s.output]), [
    ['scale', 0, [], false], ['project', 1, [0], true], ['negate', 0, [], true],
  ]);
  assert.equal(pipelineOf({ platform: 'onnxruntime_onnx' }), undefined);
  assert.equal(pipelineOf(PIPE), p, 'cached per config object');
});

const model = (name: string, config: Record<string, unknown>, state = 'READY') =>
  ({ name, version: '1', state, repository: 'r', backend: '', platform: String(config.platform ?? ''), config, instances: [] }) as Snapshot['models'][number];

test('ensemble.step links a step request to its ensemble request; counts per step; queue counts return to zero', () => {
  const live = new LiveModel();
  live.applySnapshot({
    server: { name: 's', version: '1', extensions: [], model_control_mode: 'none', token_required: false, can_control: true, cpu_count: 2, gpu_count: 0 },
    repositories: ['r'], memory: [], stats: null, t: 0, wall_ms: 0,
    models: [model('pipe', PIPE), model('scale', { platform: 'onnxruntime_onnx' }), model('project', {}, 'UNAVAILABLE'), model('negate', {})],
  });
  const ev = (e: Record<string, unknown>) => live.apply({ t: 10, version: '1', ...e } as SchedulerEvent);
  ev({ type: 'request.queued', model: 'pipe', request_id: 'p1', priority: 1, batch_size: 1, queue_depth: 0 });
  for (const [step, m] of [[0, 'scale'], [2, 'negate']] as const) {
    ev({ type: 'ensemble.step', model: m, request_id: `p1#${step}`, step, parent: { model: 'pipe', version: '1', request_id: 'p1' } });
    ev({ type: 'request.queued', model: m, request_id: `p1#${step}`, priority: 1, batch_size: 1, queue_depth: 1 });
  }
  const r = live.requests.get('scale:1/p1#0')!;
  assert.equal(r.parent, 'pipe:1/p1');
  assert.equal(r.step, 0);
  assert.deepEqual(stepsInFlight(live, 'pipe:1', 3), [1, 0, 1]);
  assert.deepEqual(live.models.get('pipe:1')!.stepsSent, [1, 0, 1]);
  assert.equal(live.models.get('pipe:1')!.queued.get(1), 1);
  ev({ type: 'request.completed', model: 'pipe', request_id: 'p1', batch_id: '', priority: 1, batch_size: 1, queue_us: 1, compute_us: 5, total_us: 9, ok: true, steps: 2 });
  assert.equal(live.models.get('pipe:1')!.queued.get(1), 0, 'an ensemble request forms no batch: it leaves the queue count when answered');
  assert.equal(composingModel(live, 'project')?.state, 'UNAVAILABLE');
  assert.equal(composingModel(live, 'ghost'), undefined);
});
