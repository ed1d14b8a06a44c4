// Every response the server gives on the KServe v2 REST paths validates against the Open Inference
// Protocol's schemas (ajv, test/http/oip-schema.ts): metadata, readiness errors, inference (JSON, binary
// header, classification), errors, statistics and the repository index. The schema itself is checked
// too: documents that break the protocol are refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server';
import { schemaErrors, type SchemaName } from './oip-schema';

let server: TestServer;
before(async () => {
  server = await startTestServer({ live: false });
});
after(async () => server?.close());

async function check(schema: SchemaName, path: string, init?: RequestInit, status = 200): Promise<unknown> {
  const r = await fetch(server.url + path, init);
  assert.equal(r.status, status, `${path}: ${r.status}`);
  let doc: unknown;
  const len = r.headers.get('inference-header-content-length');
  const body = Buffer.from(await r.arrayBuffer());
  doc = JSON.parse((len ? body.subarray(0, Number(len)) : body).toString('utf8'));
  assert.equal(schemaErrors(schema, doc), '', `${path} does not conform: ${JSON.stringify(doc).slice(0, 300)}`);
  return doc;
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers });
const image = (batch: number) => ({ name: 'input', datatype: 'FP32', shape: [batch, 784], data: new Array(batch * 784).fill(0.1) });

test('responses conform to the Open Inference Protocol REST schema', async () => {
  await check('serverMetadata', '/v2');
  await check('modelMetadata', '/v2/models/mlp_classifier');
  await check('modelMetadata', '/v2/models/text_encoder/versions/1');
  await check('error', '/v2/models/nope', undefined, 404);
  await check('error', '/v2/models/nope/ready', undefined, 404);
  await check('inferResponse', '/v2/models/mlp_classifier/infer', post({ id: 'a', inputs: [image(2)] }));
  await check('inferResponse', '/v2/models/mlp_classifier/infer', post({ inputs: [image(1)], parameters: { binary_data_output: true } }));
  await check('inferResponse', '/v2/models/mlp_classifier/infer', post({ inputs: [image(1)], outputs: [{ name: 'probabilities', parameters: { classification: 3 } }] }));
  const raw = Buffer.from(new Float32Array(784).fill(0.2).buffer);
  const rawDoc = (await check('inferResponse', '/v2/models/mlp_classifier/infer', { method: 'POST', body: raw, headers: { 'inference-header-content-length': '0' } })) as { outputs: { shape: number[] }[] };
  assert.deepEqual(rawDoc.outputs[0].shape, [1, 10], 'raw binary body: batch of one');
  await check('inferResponse', '/v2/models/text_encoder/infer', post({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 3], data: [1, 2, 3] }] }));
  await check('error', '/v2/models/mlp_classifier/infer', post({ inputs: [{ ...image(1), datatype: 'INT32' }] }), 400);
  await check('error', '/v2/models/mlp_classifier/infer', post('{"inputs": [{'), 400);
  await check('error', '/v2/models/mlp_classifier/infer', post({ inputs: [image(1)], outputs: [{ name: 'probabilities' }, { name: 'probabilities' }] }), 400);
  await check('modelStats', '/v2/models/stats');
  await check('modelStats', '/v2/models/mlp_classifier/stats');
  await check('error', '/v2/models/nope/stats', undefined, 400);
  await check('repositoryIndex', '/v2/repository/index', post({}));
  await check('error', '/healthz', undefined, 404);
});

test('the schema refuses what the protocol does not allow', () => {
  assert.notEqual(schemaErrors('inferResponse', { model_name: 'm', outputs: [{ name: 'o', shape: [1], datatype: 'FP32' }] }), '', 'an output without data');
  assert.notEqual(schemaErrors('inferResponse', { outputs: [] }), '', 'no model_name');
  assert.notEqual(schemaErrors('modelStats', { model_stats: [{ name: 'm', version: '1', last_inference: 0, inference_count: 0, execution_count: 0, batch_stats: [],
    inference_stats: { success: { count: 1, ns: 6528782894.003741 }, fail: { count: 0, ns: 0 }, queue: { count: 0, ns: 0 }, compute_input: { count: 0, ns: 0 }, compute_infer: { count: 0, ns: 0 }, compute_output: { count: 0, ns: 0 } } }] }), '', 'fractional ns');
  assert.notEqual(schemaErrors('modelMetadata', { name: 'm', platform: 'p', inputs: [{ name: 'x', datatype: 'FP32', shape: [1.5] }] }), '');
  assert.notEqual(schemaErrors('error', { error: '' }), '');
});
