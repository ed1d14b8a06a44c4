import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter, type LimitedInstance } from './rate-limiter';
import { parseRateLimitMode, parseRateLimitResource, mergeExplicitResources } from './flags';
import { GLOBAL } from './resources';
import { VirtualClock } from '../clock/virtual-clock';
import { InferError } from '../errors';

const loadError = (fn: () => unknown, message: string) =>
  assert.throws(fn, (e: unknown) => e instanceof InferError && e.code === 'INVALID_ARG' && e.message === message);

/**
 * Instances that always have another batch: each runs `computeUs` per batch on the virtual clock, asks the
 * limiter before each and releases after. Records every execution's [start, end) per instance.
 */
function drive(limiter: RateLimiter, ids: string[], computeUs: number, untilUs: number) {
  const clock = new VirtualClock();
  const runs = new Map<string, [number, number][]>(ids.map((id) => [id, []]));
  const start = (id: string) => {
    const t0 = clock.now();
    clock.setTimer(t0 + computeUs, () => {
      runs.get(id)!.push([t0, clock.now()]);
      if (clock.now() >= untilUs) {
        limiter.release(id);
        return;
      }
      if (limiter.release(id, () => start(id))) start(id);
    });
  };
  for (const id of ids) if (limiter.acquire(id, () => start(id))) start(id);
  clock.runUntilIdle();
  return runs;
}

const overlaps = (a: [number, number][], b: [number, number][]) => a.some(([s1, e1]) => b.some(([s2, e2]) => s1 < e2 && s2 < e1));

test('two models sharing a resource of count 1 never run at once, and take turns weighted by priority', () => {
  const limiter = new RateLimiter('execution_count');
  limiter.addInstance({ id: 'heavy_a/0', model: 'heavy_a', device: 0, priority: 1, resources: [{ name: 'R', count: 1 }] });
  limiter.addInstance({ id: 'heavy_b/0', model: 'heavy_b', device: 0, priority: 2, resources: [{ name: 'R', count: 1 }] });
  const runs = drive(limiter, ['heavy_a/0', 'heavy_b/0'], 10_000, 900_000);
  const a = runs.get('heavy_a/0')!;
  const b = runs.get('heavy_b/0')!;
  assert.equal(overlaps(a, b), false);
  // executions x priority, lowest first: priority 1 runs twice for each run of priority 2
  assert.ok(Math.abs(a.length - 2 * b.length) <= 2, `a ${a.length} b ${b.length}`);
  // the resource is never idle while someone waits: each run starts as the one before it ends
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  all.slice(1).forEach(([startUs], i) => assert.equal(startUs, all[i][1]));
  assert.ok(all.length >= 90);
});

test('without the limiter (mode off) the same two run at once and priorities mean nothing', () => {
  const limiter = new RateLimiter('off');
  limiter.addInstance({ id: 'a', model: 'a', device: 0, priority: 1, resources: [{ name: 'R', count: 1 }] });
  limiter.addInstance({ id: 'b', model: 'b', device: 0, priority: 2, resources: [{ name: 'R', count: 1 }] });
  const runs = drive(limiter, ['a', 'b'], 10_000, 100_000);
  assert.equal(overlaps(runs.get('a')!, runs.get('b')!), true);
  assert.deepEqual([runs.get('a')!.length, runs.get('b')!.length], [10, 10]);
});

test('per-device resources are one pool per device; a global one is one pool for all', () => {
  const perDevice = new RateLimiter('execution_count');
  perDevice.addInstance({ id: 'g0', model: 'm', device: 0, resources: [{ name: 'R', count: 1 }] });
  perDevice.addInstance({ id: 'g1', model: 'm', device: 1, resources: [{ name: 'R', count: 1 }] });
  const r1 = drive(perDevice, ['g0', 'g1'], 1000, 10_000);
  assert.equal(overlaps(r1.get('g0')!, r1.get('g1')!), true);

  const global = new RateLimiter('execution_count');
  global.addInstance({ id: 'g0', model: 'm', device: 0, resources: [{ name: 'R', global: true, count: 1 }] });
  global.addInstance({ id: 'g1', model: 'm', device: 1, resources: [{ name: 'R', global: true, count: 1 }] });
  const r2 = drive(global, ['g0', 'g1'], 1000, 10_000);
  assert.equal(overlaps(r2.get('g0')!, r2.get('g1')!), false);
  assert.deepEqual(global.snapshot().resources, [{ scope: GLOBAL, name: 'R', count: 1, held: 0, holders: [], waiting: [] }]);
});

test("a resource's count defaults to the largest need any instance declares (Triton's documented example)", () => {
  const limiter = new RateLimiter('execution_count');
  const needs: Record<string, [string, number][]> = {
    A: [['R1', 4], ['R2', 4]],
    B: [['R2', 5], ['R3', 10], ['R4', 5]],
    C: [['R1', 1], ['R3', 7], ['R4', 2]],
  };
  for (const [id, list] of Object.entries(needs)) limiter.addInstance({ id, model: id, device: 0, resources: list.map(([name, count]) => ({ name, count })) });
  assert.deepEqual(limiter.snapshot().resources.map((r) => [r.name, r.count]), [['R1', 4], ['R2', 5], ['R3', 10], ['R4', 5]]);
  // B leaves: R3 and R4 fall to what C needs, R2 to what A needs
  limiter.removeInstance('B');
  assert.deepEqual(limiter.snapshot().resources.map((r) => [r.name, r.count]), [['R1', 4], ['R2', 4], ['R3', 7], ['R4', 2]]);
});

test('command-line counts per device, for every device, and for a global resource (the documented two-device example)', () => {
  const explicit = mergeExplicitResources(['R1:10', 'R2:5:0', 'R2:8:1', 'R3:2', 'R3:7'].map(parseRateLimitResource));
  const limiter = new RateLimiter('execution_count', explicit);
  const needs = [{ name: 'R1', count: 1 }, { name: 'R2', count: 1 }, { name: 'R3', global: true, count: 1 }];
  limiter.addInstance({ id: 'd0', model: 'm', device: 0, resources: needs });
  limiter.addInstance({ id: 'd1', model: 'm', device: 1, resources: needs });
  assert.deepEqual(limiter.snapshot().resources.map((r) => [r.scope, r.name, r.count]), [
    [GLOBAL, 'R3', 2], [0, 'R1', 10], [0, 'R2', 5], [1, 'R1', 10], [1, 'R2', 8],
  ]);
});

test("needs the command line cannot meet fail the load with Triton's words and leave nothing behind", () => {
  const inst = (id: string, over: Partial<LimitedInstance> = {}): LimitedInstance => ({
    id, model: id, device: 0, resources: [{ name: 'resource1', count: 4 }], ...over,
  });
  const one = new RateLimiter('execution_count', [parseRateLimitResource('resource1:1')]);
  loadError(() => one.addInstance(inst('a')),
    'Resource count for "resource1" is limited to 1 which will prevent scheduling of one or more model instances, the minimum required count is 4');
  assert.deepEqual(one.snapshot().instances, []);
  // a count for another device only: none on the instance's device
  const elsewhere = new RateLimiter('execution_count', mergeExplicitResources(['resource1:10:10', 'resource2:2'].map(parseRateLimitResource)));
  loadError(() => elsewhere.addInstance(inst('a')),
    'Resource count for "resource1" is limited to 0 which will prevent scheduling of one or more model instances, the minimum required count is 4');
  // one resource named, another not: the other has no copies
  const partial = new RateLimiter('execution_count', [parseRateLimitResource('resource1:4')]);
  loadError(() => partial.addInstance(inst('a', { resources: [{ name: 'resource1', count: 4 }, { name: 'resource2', global: true, count: 2 }] })),
    'Resource count for "resource2" is limited to 0 which will prevent scheduling of one or more model instances, the minimum required count is 2');
  // global in one instance, per device in another
  const mixed = new RateLimiter('execution_count');
  mixed.addInstance(inst('a', { resources: [{ name: 'resource2', count: 1 }] }));
  loadError(() => mixed.addInstance(inst('b', { resources: [{ name: 'resource2', global: true, count: 2 }] })),
    'Resource "resource2" is present as both global and device-specific resource in the model configuration.');
  assert.deepEqual(mixed.snapshot().instances.map((i) => i.id), ['a']);
  assert.deepEqual(mixed.snapshot().resources.map((r) => [r.scope, r.name, r.count]), [[0, 'resource2', 1]]);
  // off: the config is not read at all, so nothing fails
  new RateLimiter('off', [parseRateLimitResource('resource1:1')]).addInstance(inst('a'));
});

test('the snapshot names who holds each resource and who waits for it, in the order they will be served', () => {
  const limiter = new RateLimiter('execution_count');
  for (const id of ['x', 'y', 'z']) limiter.addInstance({ id, model: id, device: 0, resources: [{ name: 'R', count: 1 }] });
  const granted: string[] = [];
  assert.equal(limiter.acquire('x', () => granted.push('x')), true);
  assert.equal(limiter.acquire('y', () => granted.push('y')), false);
  assert.equal(limiter.acquire('z', () => granted.push('z')), false);
  let snap = limiter.snapshot();
  assert.deepEqual(snap.resources[0], { scope: 0, name: 'R', count: 1, held: 1, holders: ['x'], waiting: ['y', 'z'] });
  assert.deepEqual(snap.instances.map((i) => i.state), ['running', 'waiting', 'waiting']);
  // y's batch is taken back: it stops waiting and is never granted
  assert.equal(limiter.withdraw('y'), true);
  limiter.release('x');
  assert.deepEqual(granted, ['z']);
  snap = limiter.snapshot();
  assert.deepEqual(snap.resources[0].holders, ['z']);
  assert.deepEqual(snap.instances.map((i) => [i.id, i.executions, i.state]), [['x', 1, 'idle'], ['y', 0, 'idle'], ['z', 0, 'running']]);
  // the holder is removed (unload): what it held is handed on
  limiter.acquire('x', () => granted.push('x'));
  limiter.removeInstance('z');
  assert.deepEqual(granted, ['z', 'x']);
  assert.throws(() => limiter.acquire('x', () => {}), /while running/);
});

test('the head of the queue blocks the ones behind it: a large need is not starved by small ones', () => {
  const limiter = new RateLimiter('execution_count');
  limiter.addInstance({ id: 'big', model: 'big', device: 0, resources: [{ name: 'R', count: 2 }] });
  limiter.addInstance({ id: 's1', model: 's', device: 0, resources: [{ name: 'R', count: 1 }] });
  limiter.addInstance({ id: 's2', model: 's', device: 0, resources: [{ name: 'R', count: 1 }] });
  const granted: string[] = [];
  assert.equal(limiter.acquire('s1', () => granted.push('s1')), true);
  assert.equal(limiter.acquire('big', () => granted.push('big')), false);
  // one copy of R is free, but big waits ahead of s2
  assert.equal(limiter.acquire('s2', () => granted.push('s2')), false);
  limiter.release('s1');
  assert.deepEqual(granted, ['big']);
  limiter.release('big');
  assert.deepEqual(granted, ['big', 's2']);
});

test("--rate-limit and --rate-limit-resource in Triton's words", () => {
  assert.equal(parseRateLimitMode(undefined), 'off');
  assert.equal(parseRateLimitMode('EXECUTION_COUNT'), 'execution_count');
  loadError(() => parseRateLimitMode('fast'), 'invalid argument for --rate-limit');
  assert.deepEqual(parseRateLimitResource('R1:4'), { name: 'R1', count: 4, device: null });
  assert.deepEqual(parseRateLimitResource('R1:4:1'), { name: 'R1', count: 4, device: 1 });
  for (const bad of ['R1', 'R1:1:2:3']) {
    loadError(() => parseRateLimitResource(bad), `--rate-limit-resource option format is '<resource_name>:<count>:<device>' or '<resource_name>:<count>'. Got ${bad}`);
  }
  loadError(() => parseRateLimitResource('R1:many'), 'Invalid option value. Got many');
  loadError(() => parseRateLimitResource('R1:1:99999999999'), 'Provided option value is out of bound. Got 99999999999');
  // the same name for the same device twice keeps the smaller count
  assert.deepEqual(mergeExplicitResources(['R:4', 'R:2', 'R:9:0'].map(parseRateLimitResource)), [{ name: 'R', count: 2, device: null }, { name: 'R', count: 9, device: 0 }]);
});
