// Triton's --strict-readiness: by default the server is ready only while every model it serves is READY;
// `--strict-readiness false` makes it ready whenever it accepts requests (a replica that cannot run one
// backend still takes traffic for the others). HTTP /v2/health/ready and gRPC ServerReady answer the same;
// per-model readiness is unchanged either way. Fake runtime (no onnxruntime), real HTTP and gRPC servers.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app.ts';
import { OptionsError, parseServeArgs } from '../../apps/server/src/server-options.ts';
import { fakeRuntime, makeRepository, cfg } from '../repository/fakes.ts';
import { grpcClient } from '../grpc/client.ts';

const OK = cfg({ platform: 'onnxruntime_onnx', max_batch_size: 8, input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [2] }], output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [2] }] });
const FAILS = cfg({ platform: 'onnxruntime_onnx', parameters: { fail: { string_value: 'this backend cannot run here' } } });

const apps: InferScopeApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

for (const strict of [true, false]) {
  test(`strict readiness ${strict}: HTTP and gRPC agree, per-model readiness unchanged`, async () => {
    const repo = await makeRepository({ 'ok/config.pbtxt': OK, 'ok/1/model.onnx': 'x', 'bad/config.pbtxt': FAILS, 'bad/1/model.onnx': 'x' });
    const s = await buildApp({ modelRepositories: [repo], runtime: fakeRuntime(), live: false, metricsPort: null, httpPort: 0, grpcPort: 0, host: '127.0.0.1', strictReadiness: strict });
    apps.push(s);
    const { url, grpcAddress } = await s.listen();
    const client = grpcClient(grpcAddress!);
    try {
      assert.equal((await fetch(`${url}/v2/health/ready`)).status, strict ? 400 : 200);
      assert.deepEqual(await client.call('ServerReady'), { ready: !strict });
      assert.equal((await fetch(`${url}/v2/health/live`)).status, 200);
      assert.equal((await fetch(`${url}/v2/models/ok/ready`)).status, 200);
      assert.notEqual((await fetch(`${url}/v2/models/bad/ready`)).status, 200, 'the failed model is not ready either way');
      assert.deepEqual(await client.call('ModelReady', { name: 'bad' }).catch(() => ({ ready: false })), { ready: false });
    } finally {
      client.close();
    }
  });
}

test('--strict-readiness takes a boolean value, default true', () => {
  assert.equal(parseServeArgs(['--model-repository', 'm']).strictReadiness, true);
  assert.equal(parseServeArgs(['--model-repository', 'm', '--strict-readiness', 'false']).strictReadiness, false);
  assert.equal(parseServeArgs(['--model-repository', 'm', '--strict-readiness=0']).strictReadiness, false);
  assert.equal(parseServeArgs(['--model-repository', 'm', '--strict-readiness=True']).strictReadiness, true);
  assert.throws(() => parseServeArgs(['--model-repository', 'm', '--strict-readiness', 'maybe']), (e: Error) => e instanceof OptionsError && /--strict-readiness expects true or false, got 'maybe'/.test(e.message));
});
