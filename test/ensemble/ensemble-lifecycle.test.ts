// An ensemble's state follows its composing models (Triton loads an ensemble after the models it runs):
// a missing composing model makes it UNAVAILABLE with the reason; in explicit mode loading an ensemble
// loads its composing models; unloading one makes the ensemble unavailable, loading it back brings the
// ensemble back; requests in flight when a composing model unloads each get exactly one answer.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnsembleStepEvent, RequestCompletedEvent } from '@inferscope/core';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ensembleRepository, expected, type Fixture } from './fixtures.ts';

const cleanup: Array<() => Promise<void>> = [];
after(async () => { for (const c of cleanup.reverse()) await c(); });

async function serve(only: string[] | undefined, extra: Parameters<typeof startTestServer>[0] = {}): Promise<{ server: TestServer; fx: Fixture }> {
  const fx = await ensembleRepository(only);
  cleanup.push(() => fx.remove());
  const server = await startTestServer({ modelRepositories: [fx.dir], live: false, ...extra });
  cleanup.push(() => server.close());
  return { server, fx };
}

const infer = (server: TestServer, model: string, x: number[]) =>
  fetch(`${server.url}/v2/models/${model}/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [x.length / 4, 4], data: x }] }),
  });
/** JSON has no -0 */
const plusZero = (v: number[]) => v.map((x) => x + 0);
const post = (server: TestServer, path: string) => fetch(`${server.url}${path}`, { method: 'POST' });
const indexRow = async (server: TestServer, name: string) =>
  ((await (await post(server, '/v2/repository/index')).json()) as Array<{ name: string; state?: string; reason?: string }>).find((r) => r.name === name);

test('a composing model missing from the repository: the ensemble is UNAVAILABLE with the reason, the rest serves', async () => {
  const { server } = await serve(['scale', 'project', 'negate', 'pipe', 'ghost_pipe']);
  const ghost = await indexRow(server, 'ghost_pipe');
  assert.equal(ghost?.state, 'UNAVAILABLE');
  assert.equal(ghost?.reason, 'ensemble ghost_pipe contains models that are not available: missing_model');
  const res = await fetch(`${server.url}/v2/models/ghost_pipe/infer`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] }),
  });
  assert.equal(res.status, 404);
  assert.match((await res.json()).error, /'ghost_pipe' has no available versions/);
  assert.equal((await fetch(`${server.url}/v2/models/ghost_pipe/ready`)).status, 404, 'ready answers the lookup error: the model has no available version');
  assert.equal((await indexRow(server, 'pipe'))?.state, 'READY');
  assert.equal((await infer(server, 'pipe', [1, 2, 3, 4, 5, 6, 7, 8])).status, 200);
});

test('explicit mode: loading the ensemble loads its composing models; unloading one makes it UNAVAILABLE with the reason; loading it back restores it', async () => {
  const { server } = await serve(undefined, { modelControlMode: 'explicit', loadModels: [] });
  assert.equal((await indexRow(server, 'scale'))?.state, undefined, 'nothing loaded at start');
  const load = await post(server, '/v2/repository/models/pipe/load');
  assert.equal(load.status, 200, await load.text());
  for (const m of ['scale', 'project', 'negate', 'pipe']) assert.equal((await indexRow(server, m))?.state, 'READY', m);
  const x = [1, 2, 3, 4, 0, 0, 0, 0];
  assert.deepEqual((await (await infer(server, 'pipe', x)).json()).outputs[1].data, plusZero(expected(x).NEG));

  assert.equal((await post(server, '/v2/repository/models/project/unload')).status, 200);
  const row = await indexRow(server, 'pipe');
  assert.equal(row?.state, 'UNAVAILABLE');
  assert.match(row?.reason ?? '', /composing model 'project' is not ready \(UNAVAILABLE: unloaded\)/);
  assert.equal((await infer(server, 'pipe', x)).status, 404);
  const states = server.events.filter((e) => e.type === 'model.state' && e.model === 'pipe').map((e) => (e as { state: string }).state);
  assert.deepEqual(states.slice(-1), ['UNAVAILABLE']);

  assert.equal((await post(server, '/v2/repository/models/project/load')).status, 200);
  assert.equal((await indexRow(server, 'pipe'))?.state, 'READY');
  assert.equal((await infer(server, 'pipe', x)).status, 200);
  // live edits go to the composing models: the ensemble refuses them with a reason
  await assert.rejects(server.built.manager.setInstanceCount('pipe', undefined, undefined, 2, 'test'), /'pipe' is an ensemble: it has no instances of its own/);
  await assert.rejects(server.built.manager.updateDynamicBatching('pipe', undefined, { max_queue_delay_microseconds: 5 }, 'test'), /'pipe' is an ensemble: it has no dynamic batcher/);
});

test('explicit mode: an ensemble whose composing model cannot load fails to load with the reason', async () => {
  const { server } = await serve(['scale', 'project', 'pipe'], { modelControlMode: 'explicit', loadModels: [] });
  const res = await post(server, '/v2/repository/models/pipe/load');
  assert.equal(res.status, 400);
  assert.match((await res.json()).error, /load failed for model 'pipe'.*ensemble pipe contains models that are not available: negate/);
  assert.equal((await indexRow(server, 'scale'))?.state, 'READY', 'the composing models that exist were loaded');
});

test('requests in flight while a composing model unloads: each gets exactly one answer', async () => {
  const { server } = await serve(['scale', 'project', 'negate', 'pipe'], { modelControlMode: 'explicit', loadModels: ['*'] });
  // single-sample requests go through scale in pairs (preferred size 2), the odd one waits there while
  // project, their second step, unloads: requests either finished before or fail with project's message
  const xs = Array.from({ length: 9 }, (_, i) => [i, 1, 2, 3]);
  const answers = xs.map((x) => infer(server, 'pipe', x).then(async (r) => ({ status: r.status, body: await r.json() })));
  // unload once all 9 have sent their scale step (the bus says so; no sleeping)
  await new Promise<void>((resolve) => {
    const sent = () => server.events.filter((e) => e.type === 'ensemble.step' && e.model === 'scale').length >= 9;
    if (sent()) return resolve();
    const off = server.built.bus.on(() => { if (sent()) { off(); resolve(); } });
  });
  const unload = post(server, '/v2/repository/models/project/unload');
  const results = await Promise.all(answers);
  assert.equal((await unload).status, 200);
  for (const [i, r] of results.entries()) {
    if (r.status === 200) assert.deepEqual(r.body.outputs[1].data, plusZero(expected(xs[i]!).NEG));
    else assert.match(r.body.error, /'project'/, JSON.stringify(r.body));
  }
  const done = server.events.filter((e): e is RequestCompletedEvent => e.type === 'request.completed' && e.model === 'pipe');
  const queued = server.events.filter((e) => e.type === 'request.queued' && e.model === 'pipe');
  assert.equal(done.length, queued.length, 'every accepted ensemble request has one terminal event');
  assert.equal(new Set(done.map((e) => e.request_id)).size, done.length);
  assert.equal((await indexRow(server, 'pipe'))?.state, 'UNAVAILABLE');
});

test('an ensemble of an ensemble runs the inner one through its own scheduler; poll mode: a composing model edited keeps it serving, removed makes it UNAVAILABLE', async () => {
  const { server, fx } = await serve(['scale', 'project', 'negate', 'pipe', 'outer'], { modelControlMode: 'poll', repositoryPollSecs: 0 });
  const x = [1, 2, 3, 4, 5, 6, 7, 8];
  const res = await infer(server, 'outer', x);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(body.outputs.map((o: { name: string }) => o.name), ['OUT']);
  const want = expected(x).OUT;
  (body.outputs[0].data as number[]).forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-5));
  const outerDone = server.events.filter((e): e is RequestCompletedEvent => e.type === 'request.completed' && e.model === 'outer').at(-1)!;
  const inner = server.events.filter((e): e is EnsembleStepEvent => e.type === 'ensemble.step' && e.parent.request_id === outerDone.request_id);
  assert.deepEqual(inner.map((e) => e.model), ['pipe']);
  const innerSteps = server.events.filter((e): e is EnsembleStepEvent => e.type === 'ensemble.step' && e.parent.request_id === inner[0]!.request_id);
  assert.deepEqual(innerSteps.map((e) => e.model).sort(), ['project', 'scale'], 'pipe asked only for OUT: negate pruned');

  // edit scale's batching in its file: the poll reloads scale (new load up before the old drains)
  const cfg = join(fx.dir, 'scale', 'config.pbtxt');
  await writeFile(cfg, (await readFile(cfg, 'utf8')).replace('max_queue_delay_microseconds: 2000000', 'max_queue_delay_microseconds: 1000'));
  const diff = await server.built.manager.poll();
  assert.deepEqual(diff.modified, ['scale']);
  for (const m of ['pipe', 'outer']) assert.equal((await indexRow(server, m))?.state, 'READY', m);
  assert.ok(!server.events.some((e) => e.type === 'model.state' && (e.model === 'pipe' || e.model === 'outer') && e.state !== 'READY' && e.t > outerDone.t),
    'the ensembles stayed READY through the reload');
  assert.equal((await infer(server, 'outer', x)).status, 200);

  await rm(join(fx.dir, 'project'), { recursive: true });
  await server.built.manager.poll();
  assert.match((await indexRow(server, 'pipe'))?.reason ?? '', /contains models that are not available: project|composing model 'project'/);
  assert.match((await indexRow(server, 'outer'))?.reason ?? '', /composing model 'pipe' is not ready/);
});
