// A decoupled model's request in the live picture: its execute() returning is not an answer; each
// request.response leaves as its own dot from the instance that ran the request, also after the request
// completed, and the stream is forgotten after its final response.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerEvent, Snapshot } from '@inferscope/core';
import { LiveModel } from '../src/store/live-model';

const base = { model: 's', version: '1' };

function snapshot(decoupled: boolean): Snapshot {
  return {
    server: { name: 's', version: '1', extensions: [], model_control_mode: 'none', token_required: false, can_control: true, cpu_count: 2, gpu_count: 0 },
    repositories: ['repo'],
    models: [{
      name: 's', version: '1', state: 'READY', repository: 'repo', backend: 'python', platform: '',
      config: { max_batch_size: 0, model_transaction_policy: { decoupled }, instance_group: [{ name: 's_0', count: 1 }] },
      instances: [{ name: 's_0_0', group: 's_0', kind: 'KIND_CPU', device: 'cpu', state: 'idle' }],
      files: [],
    }],
    memory: [], stats: null, t: 1000, wall_ms: 0,
  };
}

const response = (index: number, t: number, final = false, outcome: 'success' | 'empty' | 'fail' = 'success'): SchedulerEvent =>
  ({ type: 'request.response', ...base, t, request_id: 'r1', index, final, outcome, infer_us: 10, output_us: 1 });

function run(live: LiveModel): void {
  live.apply({ type: 'request.queued', ...base, t: 1100, request_id: 'r1', priority: 1, batch_size: 1, queue_depth: 1, protocol: 'grpc' });
  live.apply({ type: 'batch.formed', ...base, t: 1200, batch_id: 'b1', request_ids: ['r1'], size: 1, trigger: 'immediate', oldest_wait_us: 100 });
  live.apply({ type: 'batch.started', ...base, t: 1210, batch_id: 'b1', instance: 's_0_0', size: 1 });
}

const completed = (ok = true): SchedulerEvent => ({ type: 'request.completed', ...base, t: 1400, request_id: 'r1', batch_id: 'b1', priority: 1, batch_size: 1, queue_us: 100, compute_us: 190, total_us: 300, ok });

test('a decoupled request: every response leaves from its instance, before and after execute() returned; completion itself is no answer', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot(true));
  run(live);
  live.apply(response(0, 1300));
  live.apply({ type: 'batch.completed', ...base, t: 1399, batch_id: 'b1', instance: 's_0_0', size: 1, compute_us: 189, ok: true });
  live.apply(completed());
  assert.equal(live.finished.length, 1, 'request.completed of a decoupled model adds no answer');
  live.apply(response(1, 1500));
  live.apply(response(2, 1600, true, 'empty'));
  const answers = [0, 1, 2].map((i) => live.finished.at(i)!);
  assert.deepEqual(answers.map((r) => [r.id, r.response, r.tDone, r.instance, r.protocol, r.ok]), [
    ['s:1/r1#0', 0, 1300, 's_0_0', 'grpc', true],
    ['s:1/r1#1', 1, 1500, 's_0_0', 'grpc', true],
    ['s:1/r1#2', 2, 1600, 's_0_0', 'grpc', true],
  ]);
  // after the final response the stream is forgotten: a stray late response has no instance to leave from
  live.apply(response(3, 1700));
  assert.equal(live.finished.last()?.instance, undefined);
});

test('a failed response is drawn as a failure; a decoupled request whose execute() failed is answered by its completion', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot(true));
  run(live);
  live.apply(response(0, 1300, true, 'fail'));
  assert.equal(live.finished.last()?.ok, false);
  live.apply(completed(false));
  assert.equal(live.finished.last()?.id, 's:1/r1');
  assert.equal(live.finished.last()?.ok, false);
});

test('an ordinary model answers with its completion, as before', () => {
  const live = new LiveModel();
  live.applySnapshot(snapshot(false));
  run(live);
  live.apply(completed());
  assert.equal(live.finished.last()?.id, 's:1/r1');
});
