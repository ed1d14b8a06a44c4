/**
 * Triton's `unload_dependents` (the optional part of the model_repository extension, advertised by /v2):
 * unloading an ensemble with it also unloads the composing models that were loaded for an ensemble, not
 * asked for by name, and that no other loaded ensemble runs; nested ensembles likewise. Without it the
 * composing models stay. Real server, tiny ONNX models (test/ensemble/fixtures.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ensembleRepository, type Fixture } from '../ensemble/fixtures.ts';
import { grpcClient } from '../grpc/client.ts';

let fixture: Fixture;
let server: TestServer;
before(async () => {
  fixture = await ensembleRepository(['scale', 'project', 'negate', 'lookup', 'pipe', 'lookup_pipe', 'outer']);
  server = await startTestServer({ live: false, modelRepositories: [fixture.dir], modelControlMode: 'explicit', loadModels: [], grpcPort: 0 });
});
after(async () => {
  await server?.close();
  await fixture?.remove();
});

const post = async (path: string, body: unknown = {}) => {
  const r = await fetch(server.url + path, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
};
const load = (m: string) => post(`/v2/repository/models/${m}/load`);
const unload = (m: string, dependents?: unknown) => post(`/v2/repository/models/${m}/unload`, dependents === undefined ? {} : { parameters: { unload_dependents: dependents } });
async function ready(): Promise<string[]> {
  const rows = (await (await fetch(server.url + '/v2/repository/index', { method: 'POST', body: '{"ready": true}' })).json()) as { name: string }[];
  return rows.map((r) => r.name).sort();
}
const ok = async (p: Promise<{ status: number; text: string }>) => {
  const r = await p;
  assert.equal(r.status, 200, r.text);
};

test('unload_dependents unloads the composing models an ensemble brought, unless asked for or shared', async () => {
  await ok(load('pipe'));
  assert.deepEqual(await ready(), ['negate', 'pipe', 'project', 'scale']);
  await ok(unload('pipe'));
  assert.deepEqual(await ready(), ['negate', 'project', 'scale'], 'without the parameter the composing models stay');
  await ok(unload('scale'));
  await ok(unload('negate'));
  await ok(unload('project'));

  await ok(load('pipe'));
  await ok(load('lookup_pipe')); // shares project with pipe
  await ok(unload('pipe', true));
  assert.deepEqual(await ready(), ['lookup', 'lookup_pipe', 'project'], "project stays: lookup_pipe still runs it");
  await ok(unload('lookup_pipe', true));
  assert.deepEqual(await ready(), []);

  await ok(load('project')); // asked for by name
  await ok(load('pipe'));
  await ok(unload('pipe', true));
  assert.deepEqual(await ready(), ['project'], 'a model loaded by name stays');
  await ok(unload('project'));

  await ok(load('outer')); // an ensemble of an ensemble
  assert.deepEqual(await ready(), ['negate', 'outer', 'pipe', 'project', 'scale']);
  await ok(unload('outer', true));
  assert.deepEqual(await ready(), [], 'the nested ensemble and its models go too');

  // gRPC's RepositoryModelUnload reads the same parameter (a bool_param)
  const client = grpcClient(server.grpcAddress!);
  try {
    await ok(load('pipe'));
    await client.call('RepositoryModelUnload', { model_name: 'pipe', parameters: { unload_dependents: { bool_param: true } } });
    assert.deepEqual(await ready(), []);
  } finally {
    client.close();
  }

  const bad = await unload('pipe', 'yes');
  assert.equal(bad.status, 400);
  assert.deepEqual(JSON.parse(bad.text), { error: "Unable to parse 'unload_dependents': attempt to access JSON non-boolean as boolean" });
});
