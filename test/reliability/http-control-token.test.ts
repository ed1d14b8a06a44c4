/**
 * The control token on HTTP (issue 13, item 4): with --control-token set, anyone on the port could
 * unload and load models through the repository API while the socket's unloadModel was refused. Now
 * every state-changing HTTP route needs `Authorization: Bearer <token>`; inference stays open (data plane).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { startServer, type Running } from './harness.ts';
import { validMlpRequest } from './corpus.ts';
import { installControlAuth, isControlRoute } from '../../apps/server/src/http/control-auth.ts';
import { ControlGuard } from '../../apps/server/src/control/guard.ts';

const TOKEN = 'hardening-token-0123456789';
let server: Running;

before(async () => {
  server = await startServer({ token: TOKEN, controlMode: 'explicit', loadModels: ['mlp_classifier'] });
});
after(() => server?.close());

const CONTROL = ['/v2/repository/index', '/v2/repository/models/mlp_classifier/unload', '/v2/repository/models/mlp_classifier/load'];
/** every other state-changing route the server has: trace, logging, shared memory (Triton's extensions) */
const OTHER_CONTROL = [
  '/v2/trace/setting',
  '/v2/models/mlp_classifier/trace/setting',
  '/v2/logging',
  '/v2/systemsharedmemory/region/r1/register',
  '/v2/systemsharedmemory/region/r1/unregister',
  '/v2/systemsharedmemory/unregister',
  '/v2/cudasharedmemory/region/r1/register',
  '/v2/cudasharedmemory/region/r1/unregister',
  '/v2/cudasharedmemory/unregister',
];

test('repository index/load/unload refuse a missing or wrong token; the model stays loaded', { timeout: 60_000 }, async () => {
  let refused = 0;
  for (const url of [...CONTROL, ...OTHER_CONTROL]) {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, TOKEN, 'Bearer ']) {
      const res = await server.app.inject({ method: 'POST', url, payload: {}, headers: authorization ? { authorization } : {} });
      assert.ok(res.statusCode === 401 || res.statusCode === 403, `${url} with ${authorization}: ${res.statusCode} ${res.body}`);
      assert.match(res.json().error, /control (token|refused)/);
      assert.ok(!res.body.includes(TOKEN), 'the token is echoed');
      refused++;
    }
  }
  const ready = await server.app.inject({ method: 'GET', url: '/v2/models/mlp_classifier/ready' });
  assert.equal(ready.statusCode, 200, 'an unauthorised unload took effect');
  console.log(`http control token: ${refused} unauthorised control calls refused, model still READY`);
});

test('with the token the repository API works; inference needs no token', { timeout: 60_000 }, async () => {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const infer = await server.app.inject({ method: 'POST', url: '/v2/models/mlp_classifier/infer', payload: validMlpRequest() });
  assert.equal(infer.statusCode, 200, infer.body);
  assert.equal((await server.app.inject({ method: 'POST', url: CONTROL[0], payload: {}, headers: auth })).statusCode, 200);
  assert.equal((await server.app.inject({ method: 'POST', url: CONTROL[1], payload: {}, headers: auth })).statusCode, 200);
  assert.equal((await server.app.inject({ method: 'GET', url: '/v2/models/mlp_classifier/ready' })).statusCode, 404, 'unloaded: ready answers the lookup error, as Triton');
  assert.equal((await server.app.inject({ method: 'POST', url: CONTROL[2], payload: {}, headers: auth })).statusCode, 200);
  assert.equal((await server.app.inject({ method: 'GET', url: '/v2/models/mlp_classifier/ready' })).statusCode, 200);
});

test('a state-changing route added later is guarded by default (fail-safe), reads and infer are not', async () => {
  assert.equal(isControlRoute('POST', '/v2/models/:model/infer'), false);
  assert.equal(isControlRoute('POST', '/v2/models/:model/versions/:version/infer'), false);
  assert.equal(isControlRoute('GET', '/v2/models/:model/config'), false);
  for (const [m, u] of [['POST', '/v2/models/:model/unload'], ['DELETE', '/v2/anything'], ['PUT', '/v2/models/:model/config'], ['POST', '/v2/models/:model/infer/../unload']]) {
    assert.equal(isControlRoute(m, u), true, `${m} ${u}`);
  }
  const app = Fastify();
  installControlAuth(app, new ControlGuard(TOKEN));
  app.register(async (scope) => {
    scope.post('/new/endpoint', async () => ({ changed: true }));
  });
  const res = await app.inject({ method: 'POST', url: '/new/endpoint', payload: {} });
  assert.equal(res.statusCode, 401);
  const ok = await app.inject({ method: 'POST', url: '/new/endpoint', payload: {}, headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(ok.statusCode, 200);
  await app.close();
});
