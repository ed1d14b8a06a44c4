import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, rm, readFile, mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { EventBus, type SchedulerEvent } from '@inferscope/core';
import { ModelManager } from '../../apps/server/src/models/model-manager.ts';
import type { InferError } from '@inferscope/core';
import { fakeRuntime, makeRepository, cfg } from './fakes.ts';

const MLP = cfg({ platform: 'onnxruntime_onnx', max_batch_size: 8, dynamic_batching: { preferred_batch_size: [4] } });

function manager(repos: string[], mode: 'none' | 'poll' | 'explicit' = 'none', loadModels: string[] = []) {
  const bus = new EventBus();
  const events: SchedulerEvent[] = [];
  bus.on((e) => events.push(e));
  const runtime = fakeRuntime();
  const m = new ModelManager({ repositories: repos, controlMode: mode, loadModels, gpuCount: 0, bus, runtime });
  return { m, events, runtime };
}

const req = (v: number) => ({ batchSize: 1, shapeKey: '', payload: { inputs: [{ name: 'x', datatype: 'FP32' as const, shape: [1], data: new Float32Array([v]) }] } });

test('none mode loads every model; a bad config makes only that model UNAVAILABLE with line/column', async () => {
  const repo = await makeRepository({
    'good/config.pbtxt': MLP,
    'good/1/model.onnx': 'x',
    'broken/config.pbtxt': '{ nope',
    'broken/1/model.onnx': 'x',
  });
  const { m, events } = manager([repo]);
  await m.start();
  const rows = m.list();
  const good = rows.find((r) => r.name === 'good')!;
  const broken = rows.find((r) => r.name === 'broken')!;
  assert.equal(good.state, 'READY');
  assert.equal(good.version, '1');
  assert.equal(broken.state, 'UNAVAILABLE');
  assert.match(broken.reason ?? '', /line 2, column 7/);
  assert.ok(events.some((e) => e.type === 'model.state' && e.model === 'good' && e.state === 'LOADING'));
  assert.ok(events.some((e) => e.type === 'model.state' && e.model === 'good' && e.state === 'READY'));
  assert.equal(m.allReady(), false);
  await m.close();
});

test('version policies: default latest 1, latest 2, specific with a missing version; odd folders ignored', async () => {
  const repo = await makeRepository({
    'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x', 'a/2/model.onnx': 'x', 'a/3/model.onnx': 'x', 'a/03/model.onnx': 'x',
    'b/config.pbtxt': cfg({ platform: 'onnxruntime_onnx', version_policy: { latest: { num_versions: 2 } } }),
    'b/1/model.onnx': 'x', 'b/2/model.onnx': 'x', 'b/3/model.onnx': 'x',
    'c/config.pbtxt': cfg({ platform: 'onnxruntime_onnx', version_policy: { specific: { versions: [1, 9] } } }),
    'c/1/model.onnx': 'x', 'c/2/model.onnx': 'x',
    'd/config.pbtxt': cfg({ platform: 'onnxruntime_onnx', version_policy: { specific: { versions: [9] } } }),
    'd/1/model.onnx': 'x',
  });
  const { m } = manager([repo]);
  await m.start();
  const versions = (n: string) => m.list().filter((r) => r.name === n).map((r) => r.version);
  assert.deepEqual(versions('a'), ['3']);
  assert.deepEqual(versions('b'), ['2', '3']);
  assert.deepEqual(versions('c'), ['1']);
  const d = m.list().find((r) => r.name === 'd')!;
  assert.equal(d.state, 'UNAVAILABLE');
  assert.match(d.reason ?? '', /at least one version must be available under the version policy of model 'd'/);
  // get(): version undefined = highest READY version
  assert.equal(m.get('b')?.version, '3');
  assert.deepEqual(m.require('b').readyVersions, ['2', '3']);
  await m.close();
});

test('a model in two repositories is UNAVAILABLE; the others serve', async () => {
  const r1 = await makeRepository({ 'dup/config.pbtxt': MLP, 'dup/1/model.onnx': 'x', 'only1/config.pbtxt': MLP, 'only1/1/model.onnx': 'x' });
  const r2 = await makeRepository({ 'dup/config.pbtxt': MLP, 'dup/1/model.onnx': 'x' });
  const { m } = manager([r1, r2]);
  await m.start();
  const dup = m.list().find((r) => r.name === 'dup')!;
  assert.equal(dup.state, 'UNAVAILABLE');
  assert.match(dup.reason ?? '', /^model appears in two or more repositories/);
  assert.equal(m.list().find((r) => r.name === 'only1')!.state, 'READY');
  await m.close();
});

test('config.pbtxt is optional: auto-complete fills it from the model file', async () => {
  const repo = await makeRepository({ 'auto/1/model.onnx': 'x', 'nothing/1/weights.bin': 'x' });
  const { m } = manager([repo]);
  await m.start();
  const auto = m.require('auto');
  assert.equal(auto.config.platform, 'onnxruntime_onnx');
  assert.equal(auto.config.input?.[0].name, 'x');
  const nothing = m.list().find((r) => r.name === 'nothing')!;
  assert.equal(nothing.state, 'UNAVAILABLE');
  assert.match(nothing.reason ?? '', /no config.pbtxt/);
  await m.close();
});

test('lookups use Triton messages and codes', async () => {
  const repo = await makeRepository({ 'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x', 'bad/config.pbtxt': cfg({ platform: 'onnxruntime_onnx', parameters: { fail: { string_value: 'no' } } }), 'bad/1/model.onnx': '' });
  const { m } = manager([repo]);
  await m.start();
  const err = (fn: () => unknown) => { try { fn(); } catch (e) { return e as InferError; } assert.fail('expected a throw'); };
  assert.deepEqual([err(() => m.require('zz')).httpStatus, err(() => m.require('zz')).message], [404, "Request for unknown model: 'zz' is not found"]);
  assert.equal(err(() => m.require('a', 7)).message, "Request for unknown model: 'a' version 7 is not found");
  assert.equal(err(() => m.require('bad', 1)).httpStatus, 503);
  assert.equal(err(() => m.require('bad', 1)).message, "Request for unknown model: 'bad' version 1 is not at ready state");
  assert.equal(err(() => m.require('bad')).message, "Request for unknown model: 'bad' has no available versions");
  assert.match(m.list().find((r) => r.name === 'bad')!.reason ?? '', /backend refused: no/);
  await assert.rejects(m.infer('zz', undefined, req(1)), (e: Error & { httpStatus: number }) => e.httpStatus === 404);
  const out = await m.infer('a', '1', req(5));
  assert.equal((out[0].data as Float32Array)[0], 5);
  await m.close();
});

test('poll mode picks up added, changed and removed models without touching unchanged ones', async () => {
  const repo = await makeRepository({ 'keep/config.pbtxt': MLP, 'keep/1/model.onnx': 'x', 'change/config.pbtxt': MLP, 'change/1/model.onnx': 'x', 'gone/config.pbtxt': MLP, 'gone/1/model.onnx': 'x' });
  const { m, runtime } = manager([repo], 'poll');
  await m.start();
  const keepScheduler = runtime.schedulers.find((s) => s.opts.model === 'keep')!;
  const changeScheduler = runtime.schedulers.find((s) => s.opts.model === 'change')!;

  await makeRepository({ 'new/config.pbtxt': MLP, 'new/1/model.onnx': 'x' }, repo);
  await writeFile(join(repo, 'change/config.pbtxt'), cfg({ platform: 'onnxruntime_onnx', max_batch_size: 4 }));
  await rm(join(repo, 'gone'), { recursive: true });
  const diff = await m.poll();
  assert.deepEqual(diff, { added: ['new'], removed: ['gone'], modified: ['change'], unchanged: ['keep'] });
  assert.equal(m.require('new').state, 'READY');
  assert.equal(m.require('change').config.max_batch_size, 4);
  assert.equal(changeScheduler.stopped, true, 'the old version of a changed model is drained');
  assert.equal(keepScheduler.stopped, false, 'an unchanged model is not touched');
  assert.equal(runtime.schedulers.filter((s) => s.opts.model === 'keep').length, 1);
  assert.equal(m.get('gone'), undefined);

  // A new version file counts as a change too.
  await mkdir(join(repo, 'keep/2'));
  await writeFile(join(repo, 'keep/2/model.onnx'), 'x');
  assert.deepEqual((await m.poll()).modified, ['keep']);
  assert.equal(m.require('keep').version, '2');
  // Same size, new mtime: still a change.
  await utimes(join(repo, 'new/1/model.onnx'), new Date(), new Date(Date.now() + 5000));
  assert.deepEqual((await m.poll()).modified, ['new']);
  await m.close();
});

test('explicit mode: --load-model, load/unload with drain, refusal outside explicit mode and of path tricks', async () => {
  const repo = await makeRepository({ 'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x', 'b/config.pbtxt': MLP, 'b/1/model.onnx': 'x' });
  const { m, runtime } = manager([repo], 'explicit', ['a']);
  await m.start();
  assert.deepEqual(m.index(), [{ name: 'a', version: '1', state: 'READY' }, { name: 'b' }]);
  assert.deepEqual(m.index(true).map((r) => r.name), ['a']);
  await m.load('b');
  assert.equal(m.require('b').state, 'READY');

  // Unload drains: a request held inside the scheduler is still answered.
  const sched = runtime.schedulers.find((s) => s.opts.model === 'a')!;
  sched.hold = true;
  const pending = m.infer('a', undefined, req(3));
  const unloading = m.unload('a');
  await new Promise((r) => setImmediate(r));
  const stateWhileDraining = m.list().find((r) => r.name === 'a')!.state;
  sched.release();
  assert.equal(stateWhileDraining, 'UNLOADING');
  await unloading;
  assert.equal(((await pending)[0].data as Float32Array)[0], 3);
  assert.deepEqual(m.index().find((r) => r.name === 'a'), { name: 'a', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' });
  assert.deepEqual(runtime.unloaded, ['a:1']);

  await assert.rejects(m.load('../etc'), (e: InferError) => e.httpStatus === 400 && /path separators/.test(e.message));
  await assert.rejects(m.load('missing'), (e: InferError) => e.httpStatus === 500 && e.message === "failed to load 'missing', failed to poll from model repository");
  await assert.rejects(m.unload('missing'), /has not been served/); // the repository API turns this into Triton's no-op
  await m.close();

  const none = manager([repo], 'none').m;
  await none.start();
  await assert.rejects(none.load('a'), (e: InferError) => e.httpStatus === 503 && e.message === 'explicit model load / unload is not allowed if polling is enabled');
  await assert.rejects(none.unload('a'), /explicit model load \/ unload is not allowed/);
  await none.close();
});

test('live dynamic batching: validated, limited to what the model allows, applied to the scheduler', async () => {
  const repo = await makeRepository({ 'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x' });
  const { m, runtime } = manager([repo]);
  await m.start();
  const changes = await m.updateDynamicBatching('a', undefined, { max_queue_delay_microseconds: 500, max_batch_size: 6 }, 'test');
  assert.deepEqual(changes.map((c) => c.path).sort(), ['dynamic_batching.max_queue_delay_microseconds', 'max_batch_size']);
  assert.equal(m.require('a').config.max_batch_size, 6);
  assert.deepEqual(runtime.schedulers[0].changes, [changes], 'the scheduler runs on the change computed once');
  await assert.rejects(m.updateDynamicBatching('a', '1', { max_batch_size: 9 }, 't'), /above what model 'a' allows \(8/);
  await assert.rejects(m.updateDynamicBatching('a', '1', { max_batch_size: 3 }, 't'), /preferred size must be <= max batch size/);
  await assert.rejects(m.updateDynamicBatching('a', '1', { max_queue_delay_microseconds: -1 }, 't'), /'max_queue_delay_microseconds' must be between 0 and/);
  await assert.rejects(m.updateDynamicBatching('a', '1', { bogus: 1 } as never, 't'), /unknown dynamic batching field 'bogus'/);
  assert.equal(runtime.schedulers[0].changes.length, 1, 'refused patches never reach the scheduler');
  assert.equal(m.require('a').config.max_batch_size, 6);

  const ic = await m.setInstanceCount('a', undefined, undefined, 3, 'test');
  assert.deepEqual(ic, [{ path: 'instance_group[0].count', old: 1, new: 3 }]);
  assert.deepEqual(runtime.schedulers[0].counts, [['a_0', 3]]);
  await assert.rejects(m.setInstanceCount('a', undefined, 'nope', 2, 't'), /no instance group 'nope'/);
  await m.close();
});

test('saveConfig writes atomically with a backup, the text parses back, and a poll does not reload', async () => {
  const repo = await makeRepository({ 'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x' });
  const { m, runtime } = manager([repo], 'poll');
  await m.start();
  await m.updateDynamicBatching('a', undefined, { max_queue_delay_microseconds: 700 }, 'test');
  await m.setInstanceCount('a', undefined, undefined, 2, 'test');
  const dry = await m.saveConfig('a', { dryRun: true });
  assert.equal(dry.backup, null);
  assert.match(dry.diff, /\+.*700/);
  assert.equal(await readFile(join(repo, 'a/config.pbtxt'), 'utf8'), MLP, 'a dry run writes nothing');

  const saved = await m.saveConfig('a');
  assert.equal(saved.path, join(repo, 'a/config.pbtxt'));
  assert.equal(await readFile(saved.backup!, 'utf8'), MLP);
  const written = JSON.parse(await readFile(saved.path, 'utf8'));
  assert.equal(written.dynamic_batching.max_queue_delay_microseconds, 700);
  assert.equal(written.instance_group[0].count, 2);
  assert.equal(written.name, undefined, 'only live changes are carried into the file');
  const diff = await m.poll();
  assert.deepEqual(diff.unchanged, ['a']);
  assert.equal(runtime.schedulers.length, 1);
  await m.close();
});

test('a reload that fails keeps the previous load serving and says why; a fixed file then reloads', async () => {
  const repo = await makeRepository({ 'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x' });
  const { m, runtime } = manager([repo], 'poll');
  await m.start();
  await writeFile(join(repo, 'a/config.pbtxt'), '{ broken');
  assert.deepEqual((await m.poll()).modified, ['a']);
  const row = m.list().find((r) => r.name === 'a')!;
  assert.equal(row.state, 'READY');
  assert.match(row.reason ?? '', /reload failed, still serving the previous load: .*line 2, column 7/);
  assert.equal(runtime.schedulers[0].stopped, false);
  assert.equal(((await m.infer('a', undefined, req(2)))[0].data as Float32Array)[0], 2);
  assert.deepEqual((await m.poll()).unchanged, ['a'], 'the broken file is not retried on every poll');

  await writeFile(join(repo, 'a/config.pbtxt'), cfg({ platform: 'onnxruntime_onnx', max_batch_size: 2 }));
  await m.poll();
  assert.equal(m.require('a').config.max_batch_size, 2);
  assert.equal(m.require('a').reason, undefined);
  assert.equal(runtime.schedulers[0].stopped, true);
  await m.close();
});

test('explicit load of a model whose new config is broken fails, the loaded one keeps serving', async () => {
  const repo = await makeRepository({ 'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x' });
  const { m } = manager([repo], 'explicit', ['a']);
  await m.start();
  await writeFile(join(repo, 'a/config.pbtxt'), '{ broken');
  await assert.rejects(m.load('a'), (e: InferError) => e.httpStatus === 400 && /^load failed for model 'a': config.pbtxt: bad config/.test(e.message));
  assert.equal(m.require('a').state, 'READY');
  await m.close();
});

test('adding instances past the memory budget is refused before the scheduler is touched', async () => {
  const repo = await makeRepository({ 'a/config.pbtxt': MLP, 'a/1/model.onnx': 'x' });
  const { m, runtime } = manager([repo]);
  const asked: [string, string, number][] = [];
  runtime.memory = {
    checkAddInstances(model, version, extra) {
      asked.push([model, version, extra]);
      if (extra > 1) throw new Error(`loading ${extra} more instances of ${model} would exceed the cpu budget`);
    },
  };
  await m.start();
  await assert.rejects(m.setInstanceCount('a', undefined, undefined, 4, 't'), /would exceed the cpu budget/);
  assert.deepEqual(runtime.schedulers[0].counts, []);
  assert.equal(m.require('a').config.instance_group?.[0].count, 1);
  await m.setInstanceCount('a', undefined, undefined, 2, 't');
  assert.deepEqual(asked, [['a', '1', 3], ['a', '1', 1]]);
  await m.setInstanceCount('a', undefined, undefined, 1, 't');
  assert.equal(asked.length, 2, 'removing instances needs no memory check');
  await m.close();
});

test('symbolic links to model folders, version folders and files are followed', async () => {
  const { symlink } = await import('node:fs/promises');
  const store = await makeRepository({ 'real/config.pbtxt': MLP, 'real/1/model.onnx': 'x', 'v2/model.onnx': 'x' });
  const repo = await makeRepository({ 'b/config.pbtxt': MLP, 'b/': '' });
  await symlink(join(store, 'real'), join(repo, 'linked'));
  await symlink(join(store, 'v2'), join(repo, 'b/2'));
  const { m } = manager([repo]);
  await m.start();
  assert.equal(m.require('linked').version, '1', 'a linked model folder is a model named after the link');
  assert.equal(m.require('b').version, '2');
  assert.deepEqual(m.list().find((r) => r.name === 'b')!.files, [{ path: 'model.onnx', bytes: 1 }]);
  await m.close();
});
