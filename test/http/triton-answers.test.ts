/** Triton's exact answers in the smaller cases of its HTTP API (issue 19's list). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/server.ts';

const MODEL = 'mlp_classifier';
const row = { name: 'input', datatype: 'FP32', shape: [1, 784], data: Array(784).fill(0) };

test("Triton's answers: /v2/, negative header length, empty id, repository-scoped URLs", async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL] });
  const app = server.built.app;
  try {
    const meta = await app.inject({ url: '/v2/' });
    assert.equal(meta.statusCode, 200);
    assert.deepEqual(meta.json(), (await app.inject({ url: '/v2' })).json());

    const neg = await app.inject({ method: 'POST', url: `/v2/models/${MODEL}/infer`, headers: { 'inference-header-content-length': '-1', 'content-type': 'application/octet-stream' }, payload: Buffer.from('{}') });
    assert.equal(neg.statusCode, 400);
    assert.equal(neg.json().error, 'inference header size should be in range (0, 2), got: -1');

    const empty = await app.inject({ method: 'POST', url: `/v2/models/${MODEL}/infer`, payload: { id: '', inputs: [row] } });
    assert.equal(empty.statusCode, 200);
    assert.equal('id' in empty.json(), false, 'an empty request id is left out');
    const named = await app.inject({ method: 'POST', url: `/v2/models/${MODEL}/infer`, payload: { id: 'r1', inputs: [row] } });
    assert.equal(named.json().id, 'r1');

    const scopedIndex = await app.inject({ method: 'POST', url: '/v2/repository/models_a/index', payload: {} });
    assert.equal(scopedIndex.statusCode, 200);
    assert.deepEqual(scopedIndex.json(), (await app.inject({ method: 'POST', url: '/v2/repository/index', payload: {} })).json());
    for (const action of ['load', 'unload']) {
      const r = await app.inject({ method: 'POST', url: `/v2/repository/models_a/models/${MODEL}/${action}`, payload: {} });
      assert.equal(r.statusCode, 501);
      assert.deepEqual(r.json(), { error: "'repository_name' specification is not supported" });
    }
    assert.equal(server.built.manager.get(MODEL)?.state, 'READY', 'the scoped unload changed nothing');
    assert.ok((await app.inject({ method: 'POST', url: '/v2/repository/index', payload: {} })).json().every((r: object) => !('reason' in r) || (r as { reason: string }).reason !== ''),
      'no empty reason in index entries');
  } finally {
    await server.close();
  }
});
