/**
 * The control token on gRPC (issue 28): RepositoryModelLoad ignored --control-token, so a client without
 * it uploaded a model.py that the server then ran. Every gRPC method of the service is enumerated from the
 * server's own proto: each one that changes the server refuses a missing token (UNAUTHENTICATED) and a
 * wrong one (PERMISSION_DENIED) before it looks at the request; reads and inference stay open; with the
 * token, load and unload work. The same guard serves HTTP (http-control-token.test.ts) and the live channel.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';
import { grpcClient, type TestGrpcClient } from '../grpc/client.ts';
import { inferenceServiceDefinition } from '../../apps/server/src/grpc/proto.ts';
import { isControlMethod } from '../../apps/server/src/grpc/control-methods.ts';

const TOKEN = 'grpc-control-token-0123456789';
let server: TestServer;
let client: TestGrpcClient;
let repo: { dir: string; remove(): Promise<void> };
let scratch: string;

before(async () => {
  repo = await tempRepository(['mlp_classifier']);
  scratch = await mkdtemp(join(tmpdir(), 'is-grpc-token-'));
  server = await startTestServer({
    modelRepositories: [repo.dir], modelControlMode: 'explicit', loadModels: ['mlp_classifier'], grpcPort: 0, controlToken: TOKEN, live: false,
  });
  client = grpcClient(server.grpcAddress!);
});

after(async () => {
  client?.close();
  await server?.close();
  await repo?.remove();
  await rm(scratch, { recursive: true, force: true });
});

function metadata(authorization?: string): Metadata {
  const md = new Metadata();
  if (authorization !== undefined) md.set('authorization', authorization);
  return md;
}

/** A unary call with the given metadata: resolves with the answer, or with the ServiceError it failed with. */
function unary(method: string, req: object, md: Metadata): Promise<{ ok: true; res: unknown } | { ok: false; err: ServiceError }> {
  return new Promise((resolve) => {
    client.raw[method](req, md, (err: ServiceError | null, res: unknown) => resolve(err ? { ok: false, err } : { ok: true, res }));
  });
}

/** A model whose code, if it ever ran, would leave a file behind: what the attacker of issue 28 uploaded. */
function hostileLoad(marker: string) {
  const config = JSON.stringify({ name: 'hostile', backend: 'python', max_batch_size: 0, input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [1] }], output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [1] }] });
  const code = `open(${JSON.stringify(marker)}, "w").write("ran")\nclass TritonPythonModel:\n    def execute(self, requests):\n        return []\n`;
  return {
    model_name: 'hostile',
    parameters: {
      config: { string_param: config },
      'file:1/model.py': { bytes_param: Buffer.from(code) },
    },
  };
}

/** The service's methods by their proto names (the last segment of each path), with their definitions. */
const serviceMethods = () => Object.values(inferenceServiceDefinition()).map((d) => ({ name: d.path.split('/').pop()!, streaming: d.requestStream || d.responseStream }));

test('every state-changing gRPC method refuses a missing or wrong token before it acts', { timeout: 60_000 }, async () => {
  const control = serviceMethods().filter((m) => isControlMethod(m.name));
  for (const name of ['RepositoryModelLoad', 'RepositoryModelUnload', 'RepositoryIndex']) assert.ok(control.some((m) => m.name === name), `${name} is guarded`);
  const marker = join(scratch, 'model-code-ran');
  const requestFor = (m: string) => (m === 'RepositoryModelLoad' ? hostileLoad(marker) : { model_name: 'mlp_classifier' });
  let refused = 0;
  for (const { name, streaming } of control) {
    assert.ok(!streaming, `${name}: a streaming control method needs its own case in this test`);
    for (const [authorization, code] of [
      [undefined, status.UNAUTHENTICATED], ['Bearer ', status.UNAUTHENTICATED], [TOKEN, status.UNAUTHENTICATED], [`Basic ${TOKEN}`, status.UNAUTHENTICATED],
      ['Bearer wrong-token', status.PERMISSION_DENIED],
    ] as const) {
      const r = await unary(name, requestFor(name), metadata(authorization));
      assert.equal(r.ok, false, `${name} with ${authorization}: accepted`);
      if (!r.ok) {
        assert.equal(r.err.code, code, `${name} with ${authorization}: ${r.err.code} ${r.err.details}`);
        assert.match(r.err.details, /control (token|refused)/);
        assert.ok(!r.err.details.includes(TOKEN), 'the token is echoed');
      }
      refused++;
    }
  }
  assert.equal(existsSync(marker), false, 'uploaded model code ran without the token');
  const live = await unary('ModelReady', { name: 'mlp_classifier' }, metadata());
  assert.ok(live.ok, 'an unauthorised unload took effect');
  console.log(`grpc control token: ${control.length} control methods (${control.map((m) => m.name).join(', ')}), ${refused} unauthorised calls refused`);
});

test('reads and inference need no token; with the token, unload and load work', { timeout: 60_000 }, async () => {
  const open = serviceMethods().map((m) => m.name).filter((m) => !isControlMethod(m));
  assert.ok(open.includes('ModelInfer') && open.includes('ServerLive'));
  assert.ok((await unary('ServerLive', {}, metadata())).ok);
  const infer = await unary('ModelInfer', {
    model_name: 'mlp_classifier', inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], contents: { fp32_contents: new Array(784).fill(0.5) } }],
  }, metadata());
  assert.ok(infer.ok, infer.ok ? '' : infer.err.details);
  const auth = metadata(`Bearer ${TOKEN}`);
  const index = await unary('RepositoryIndex', {}, auth);
  assert.ok(index.ok);
  assert.ok((await unary('RepositoryModelUnload', { model_name: 'mlp_classifier' }, auth)).ok);
  const gone = await unary('ModelReady', { name: 'mlp_classifier' }, metadata());
  assert.ok(!gone.ok || (gone.res as { ready: boolean }).ready === false, 'unloaded with the token');
  const load = await unary('RepositoryModelLoad', { model_name: 'mlp_classifier' }, auth);
  assert.ok(load.ok, load.ok ? '' : load.err.details);
  const back = await unary('ModelReady', { name: 'mlp_classifier' }, metadata());
  assert.ok(back.ok && (back.res as { ready: boolean }).ready, 'loaded again with the token');
});
