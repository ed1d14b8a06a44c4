/**
 * Ensemble graphs (issue 28): a cycle of ensembles (a -> b -> a) made the server recurse until "Maximum
 * call stack size exceeded" at start and in explicit mode, and a poll-mode edit that closed a cycle left
 * both READY (a request then got 500 with that text). A cycle is now found wherever an ensemble is
 * evaluated (load, explicit load, every poll change), and each ensemble on it is UNAVAILABLE with
 * Triton's kind of message naming the cycle (a reload that would close one fails, and the previous load
 * keeps serving, as for any failed reload). And `--load-model` of
 * an ensemble at start in explicit mode loads its composing models, as a later load does.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ensembleRepository, PIPE, type Fixture } from '../ensemble/fixtures.ts';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

/** An ensemble `name` with one step running `runs` (IN -> OUT). */
const loop = (name: string, runs: string) => `name: "${name}"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 3 ] } ]
ensemble_scheduling { step [ { model_name: "${runs}" model_version: -1 input_map { key: "IN" value: "IN" } output_map { key: "OUT" value: "OUT" } } ] }
`;

async function writeModel(fx: Fixture, name: string, config: string): Promise<void> {
  await mkdir(join(fx.dir, name, '1'), { recursive: true });
  await writeFile(join(fx.dir, name, 'config.pbtxt'), config);
}

async function serve(models: string[], extra: Parameters<typeof startTestServer>[0] = {}, loops: Record<string, string> = {}): Promise<{ server: TestServer; fx: Fixture }> {
  const fx = await ensembleRepository(models);
  cleanup.push(() => fx.remove());
  for (const [name, runs] of Object.entries(loops)) await writeModel(fx, name, loop(name, runs));
  const server = await startTestServer({ modelRepositories: [fx.dir], live: false, ...extra });
  cleanup.push(() => server.close());
  return { server, fx };
}

const row = (server: TestServer, name: string) => server.built.manager.index().find((r) => r.name === name);
const infer = (server: TestServer, model: string) =>
  server.built.app.inject({ method: 'POST', url: `/v2/models/${model}/infer`, payload: { inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }] } });

function assertCycle(server: TestServer, name: string, cycle: string): void {
  const r = row(server, name);
  assert.equal(r?.state, 'UNAVAILABLE', `${name}: ${JSON.stringify(r)}`);
  assert.equal(r?.reason, `circular dependency between ensembles: ${cycle}`);
}

test('a cycle of ensembles at start is refused naming it; the other models serve', async () => {
  const { server } = await serve(['scale', 'project', 'negate', 'pipe'], {}, { loop_a: 'loop_b', loop_b: 'loop_c', loop_c: 'loop_a', selfish: 'selfish' });
  assertCycle(server, 'loop_a', 'loop_a -> loop_b -> loop_c -> loop_a');
  assertCycle(server, 'loop_b', 'loop_b -> loop_c -> loop_a -> loop_b');
  assertCycle(server, 'loop_c', 'loop_c -> loop_a -> loop_b -> loop_c');
  assertCycle(server, 'selfish', 'selfish -> selfish');
  const res = await infer(server, 'loop_a');
  assert.notEqual(res.statusCode, 500, res.body);
  assert.doesNotMatch(res.body, /call stack/);
  assert.equal(row(server, 'pipe')?.state, 'READY');
  assert.equal((await infer(server, 'pipe')).statusCode, 200);
});

test('explicit mode: loading an ensemble on a cycle fails naming it, without recursing', async () => {
  const { server } = await serve(['scale'], { modelControlMode: 'explicit', loadModels: ['loop_a'] }, { loop_a: 'loop_b', loop_b: 'loop_a' });
  assertCycle(server, 'loop_a', 'loop_a -> loop_b -> loop_a');
  assertCycle(server, 'loop_b', 'loop_b -> loop_a -> loop_b');
  await assert.rejects(server.built.manager.load('loop_b'), /circular dependency between ensembles: loop_b -> loop_a -> loop_b/);
});

test('poll mode: an edit that closes a cycle is refused naming it, the previous load serves; a new model on a cycle is UNAVAILABLE', async () => {
  const { server, fx } = await serve(['scale', 'project', 'negate', 'pipe', 'outer'], { modelControlMode: 'poll', repositoryPollSecs: 0 });
  assert.equal(row(server, 'outer')?.state, 'READY');
  // pipe now runs outer, which runs pipe: the reload fails (as any failed reload, the old pipe keeps serving)
  await writeFile(join(fx.dir, 'pipe', 'config.pbtxt'), loop('pipe', 'outer'));
  assert.deepEqual((await server.built.manager.poll()).modified, ['pipe']);
  assert.match(row(server, 'pipe')?.reason ?? '', /circular dependency between ensembles: pipe -> outer -> pipe/);
  const res = await infer(server, 'outer');
  assert.equal(res.statusCode, 200, res.body);
  // models added by a poll that close a cycle among themselves
  await writeModel(fx, 'loop_a', loop('loop_a', 'loop_b'));
  await writeModel(fx, 'loop_b', loop('loop_b', 'loop_a'));
  await server.built.manager.poll();
  assertCycle(server, 'loop_a', 'loop_a -> loop_b -> loop_a');
  assertCycle(server, 'loop_b', 'loop_b -> loop_a -> loop_b');
  assert.doesNotMatch((await infer(server, 'loop_a')).body, /call stack/);
  // undone: pipe reloads clean
  await writeFile(join(fx.dir, 'pipe', 'config.pbtxt'), PIPE);
  await server.built.manager.poll();
  assert.equal(row(server, 'pipe')?.state, 'READY', JSON.stringify(row(server, 'pipe')));
  assert.equal(row(server, 'pipe')?.reason, undefined);
  assert.equal(row(server, 'outer')?.state, 'READY', JSON.stringify(row(server, 'outer')));
  assert.equal((await infer(server, 'outer')).statusCode, 200);
});

test('explicit mode: --load-model ENSEMBLE at start loads its composing models (ensembles of ensembles too)', async () => {
  const { server } = await serve(['scale', 'project', 'negate', 'pipe', 'outer'], { modelControlMode: 'explicit', loadModels: ['outer'] });
  for (const m of ['outer', 'pipe', 'scale', 'project', 'negate']) assert.equal(row(server, m)?.state, 'READY', `${m}: ${JSON.stringify(row(server, m))}`);
  assert.equal((await infer(server, 'outer')).statusCode, 200);
});
