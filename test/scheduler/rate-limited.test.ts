/**
 * The rate limiter between the formed batch and its instance (issue 54), through the real ModelScheduler on
 * the VirtualClock: two models share one resource of count 1 ("two models, one accelerator").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '@inferscope/core/events.ts';
import { VirtualClock } from '@inferscope/core/clock';
import { ModelScheduler } from '@inferscope/core/scheduler/model-scheduler.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import type { Executor, InstanceInfo, SchedulerRequest } from '@inferscope/core/scheduler/types.ts';
import { RateLimiter, parseRateLimitResource } from '@inferscope/core/rate-limiter';
import { InferError } from '@inferscope/core/errors';

/** Every batch takes `costUs` on the virtual clock; records [model, instance, start, end] of each. */
class TimedExecutor implements Executor<string, string> {
  readonly runs: { model: string; instance: string; start: number; end: number }[] = [];
  readonly started: string[] = [];
  constructor(private readonly clock: VirtualClock, private readonly model: string, private readonly costUs: number) {}
  execute(): Promise<string[]> {
    throw new Error('callback form expected');
  }
  executeWithCallback(instance: InstanceInfo, batch: readonly SchedulerRequest<string>[], done: (e: unknown, r?: string[]) => void): void {
    const start = this.clock.now();
    this.clock.setTimer(start + this.costUs, () => {
      this.runs.push({ model: this.model, instance: instance.name, start, end: this.clock.now() });
      done(null, batch.map((r) => `${this.model}:${r.payload}`));
    });
  }
  async startInstance(i: InstanceInfo): Promise<void> {
    this.started.push(i.name);
  }
}

const config = (name: string, priority: number, count = 1, need = 1): SchedulerConfigInput => ({
  name, max_batch_size: 0,
  instance_group: [{ kind: 'KIND_CPU', count, rate_limiter: { resources: [{ name: 'accelerator', count: need }], priority } }],
});

function heavyModel(clock: VirtualClock, limiter: RateLimiter | undefined, name: string, priority: number, count = 1) {
  const executor = new TimedExecutor(clock, name, 10_000);
  const scheduler = new ModelScheduler<string, string>({ model: name, version: '1', config: config(name, priority, count), clock, bus: new EventBus(), executor, rateLimiter: limiter });
  return { executor, scheduler };
}

async function backlog(clock: VirtualClock, models: ReturnType<typeof heavyModel>[], perModel: number, start = true) {
  if (start) for (const m of models) await m.scheduler.start();
  const answers: Promise<string>[] = [];
  for (let i = 0; i < perModel; i++) for (const m of models) answers.push(m.scheduler.enqueue({ payload: String(i), batchSize: 1, shapeKey: '' }));
  clock.runUntilIdle();
  return Promise.all(answers);
}

const overlapping = (a: { start: number; end: number }[], b: { start: number; end: number }[]) =>
  a.some((x) => b.some((y) => x.start < y.end && y.start < x.end));

test('with the limiter two heavy models take turns on a resource of count 1, the higher priority (1) twice as often', async () => {
  const clock = new VirtualClock();
  const limiter = new RateLimiter('execution_count');
  const a = heavyModel(clock, limiter, 'heavy_a', 1);
  const b = heavyModel(clock, limiter, 'heavy_b', 2);
  // mid-run, one instance runs and the other holds a formed batch waiting for the resource
  await a.scheduler.start();
  await b.scheduler.start();
  const early = [a.scheduler.enqueue({ payload: 'x', batchSize: 1, shapeKey: '' }), b.scheduler.enqueue({ payload: 'y', batchSize: 1, shapeKey: '' })];
  assert.deepEqual([a, b].map((m) => m.scheduler.snapshot().instances[0].waiting_for_resources), [undefined, true]);
  assert.deepEqual(limiter.snapshot().resources[0].holders, ['heavy_a:1:heavy_a_0_0']);
  assert.deepEqual(limiter.snapshot().resources[0].waiting, ['heavy_b:1:heavy_b_0_0']);
  clock.runUntilIdle();
  await Promise.all(early);
  a.executor.runs.length = 0;
  b.executor.runs.length = 0;
  const answers = await backlog(clock, [a, b], 40, false);
  assert.equal(answers.length, 80, 'every request answered');
  assert.ok(answers.includes('heavy_a:39') && answers.includes('heavy_b:39'));
  assert.equal(overlapping(a.executor.runs, b.executor.runs), false, 'never both at once');
  // while both have work (the first 30 batches), executions x priority keeps A at twice B's turns
  const first = [...a.executor.runs, ...b.executor.runs].sort((x, y) => x.start - y.start).slice(0, 30);
  const turnsA = first.filter((r) => r.model === 'heavy_a').length;
  assert.ok(Math.abs(turnsA - 20) <= 1, `heavy_a had ${turnsA} of the first 30 turns`);
  // back to back: the resource is never idle while a batch waits
  const all = [...a.executor.runs, ...b.executor.runs].sort((x, y) => x.start - y.start);
  all.slice(1).forEach((r, i) => assert.equal(r.start, all[i].end));
  assert.deepEqual(limiter.snapshot().resources.map((r) => [r.name, r.count, r.held]), [['accelerator', 1, 0]]);
});

test('without the limiter (--rate-limit off) the same two run at once', async () => {
  const clock = new VirtualClock();
  const off = new RateLimiter('off');
  const a = heavyModel(clock, off, 'heavy_a', 1);
  const b = heavyModel(clock, off, 'heavy_b', 2);
  await backlog(clock, [a, b], 5);
  assert.equal(overlapping(a.executor.runs, b.executor.runs), true);
  assert.equal(clock.now(), 50_000, 'each model ran its five alone: 5 x 10 ms');
});

test("a need above the command line's count fails the load with Triton's words before any instance starts", async () => {
  const clock = new VirtualClock();
  const limiter = new RateLimiter('execution_count', [parseRateLimitResource('accelerator:1')]);
  const executor = new TimedExecutor(clock, 'big', 1000);
  const scheduler = new ModelScheduler<string, string>({ model: 'big', version: '1', config: config('big', 1, 1, 4), clock, bus: new EventBus(), executor, rateLimiter: limiter });
  await assert.rejects(scheduler.start(), (e: unknown) => e instanceof InferError && e.code === 'INVALID_ARG' &&
    e.message === 'Resource count for "accelerator" is limited to 1 which will prevent scheduling of one or more model instances, the minimum required count is 4');
  assert.deepEqual(executor.started, []);
  assert.equal(scheduler.currentState, 'failed');
  assert.deepEqual(limiter.snapshot().instances, []);
});

test('live instance changes register and forget instances with the limiter while traffic flows', async () => {
  const clock = new VirtualClock();
  const limiter = new RateLimiter('execution_count');
  const a = heavyModel(clock, limiter, 'heavy_a', 1, 1);
  await a.scheduler.start();
  const answers: Promise<string>[] = [];
  for (let i = 0; i < 6; i++) answers.push(a.scheduler.enqueue({ payload: String(i), batchSize: 1, shapeKey: '' }));
  await a.scheduler.setInstanceCount(undefined, 2, 'test');
  assert.equal(limiter.snapshot().instances.length, 2);
  clock.runUntilIdle();
  assert.equal((await Promise.all(answers)).length, 6);
  // two instances, one copy of the resource: still one batch at a time
  const runs = a.executor.runs.sort((x, y) => x.start - y.start);
  runs.slice(1).forEach((r, i) => assert.ok(r.start >= runs[i].end));
  assert.equal(new Set(runs.map((r) => r.instance)).size, 2, 'both instances took turns');
  await a.scheduler.setInstanceCount(undefined, 1, 'test');
  clock.runUntilIdle();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(limiter.snapshot().instances.map((i) => i.id), ['heavy_a:1:heavy_a_0_0']);
  await a.scheduler.stop();
  assert.deepEqual(limiter.snapshot().instances, []);
});

test('limited resources make the same work take longer than plenty (L0_rate_limiter in spirit)', async () => {
  const run = async (explicitCount: number) => {
    const clock = new VirtualClock();
    const limiter = new RateLimiter('execution_count', [{ name: 'accelerator', count: explicitCount, device: null }]);
    const models = ['m1', 'm2', 'm3'].map((name) => {
      const executor = new TimedExecutor(clock, name, 10_000);
      const scheduler = new ModelScheduler<string, string>({ model: name, version: '1', config: config(name, 1, 1, 2), clock, bus: new EventBus(), executor, rateLimiter: limiter });
      return { executor, scheduler };
    });
    await backlog(clock, models, 4);
    return clock.now();
  };
  // each instance needs 2 copies: with 2, one model at a time (3 x 4 batches of 10 ms); with 6, all three at once
  assert.equal(await run(2), 120_000);
  assert.equal(await run(6), 40_000);
});
