// BLS calls are children of the calling request in the event stream and in the trace, as ensemble steps
// are: a traced python model's BLS calls (sync, and async with asyncio.gather) are traced too, each with
// parent_id = the caller's trace id; the dashboard's store links them to their parent.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ADD_SUB_PY, NO_NUMPY, addSubConfig, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';
import { LiveModel } from '../../apps/web/src/store/live-model.ts';

// two BLS calls per request: one with exec(), then two at once with async_exec()
const CALLER_PY = `
import asyncio
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    async def execute(self, requests):
        out = []
        for request in requests:
            a = pb_utils.get_input_tensor_by_name(request, "INPUT0")
            b = pb_utils.get_input_tensor_by_name(request, "INPUT1")
            call = lambda: pb_utils.InferenceRequest(model_name="add_sub", requested_output_names=["OUTPUT0", "OUTPUT1"], inputs=[a, b])
            first = call().exec()
            more = await asyncio.gather(call().async_exec(), call().async_exec())
            assert not any(r.has_error() for r in [first, *more])
            out.append(pb_utils.InferenceResponse(first.output_tensors()))
        return out
`;

let repo: TempRepo;
let server: TestServer;
let dir: string;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo('is-blstrace-');
  // as Triton's bls example: no batch dimension on either model
  const unbatched = (name: string) => addSubConfig(name).replace('max_batch_size: 8', 'max_batch_size: 0').replace(/dynamic_batching \{[^}]*\}/, '');
  repo.add('add_sub', unbatched('add_sub'), { 'model.py': ADD_SUB_PY });
  repo.add('caller', unbatched('caller'), { 'model.py': CALLER_PY });
  dir = mkdtempSync(join(tmpdir(), 'is-blstrace-out-'));
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: null, live: false, traceConfig: [`triton,file=${join(dir, 'trace.json')}`] });
  const set = await server.built.app.inject({ method: 'POST', url: '/v2/models/caller/trace/setting', payload: { trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
  assert.equal(set.statusCode, 200, set.body);
});

after(async () => {
  await server?.close();
  repo?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a traced caller\'s BLS calls are traced as its children; the dashboard links them to it', { skip: NO_NUMPY }, async () => {
  const r = await inferJson(server.url, 'caller', [
    { name: 'INPUT0', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] },
    { name: 'INPUT1', datatype: 'FP32', shape: [4], data: [1, 1, 1, 1] },
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await server.built.tracer.flush();
  const entries = JSON.parse(readFileSync(join(dir, 'trace.json'), 'utf8')) as Array<{ id: number; model_name?: string; parent_id?: number; timestamps?: Array<{ name: string }> }>;
  const heads = entries.filter((e) => e.model_name !== undefined);
  const caller = heads.find((e) => e.model_name === 'caller')!;
  assert.equal(caller.parent_id, undefined);
  const children = heads.filter((e) => e.parent_id === caller.id);
  assert.deepEqual(children.map((e) => e.model_name), ['add_sub', 'add_sub', 'add_sub']);
  for (const c of children) {
    const names = entries.find((e) => e.id === c.id && e.timestamps)!.timestamps!.map((t) => t.name);
    assert.ok(names.includes('COMPUTE_START') && names.includes('REQUEST_END'), names.join(','));
  }

  // the same events in the dashboard's store: each BLS request in flight names its parent request
  const live = new LiveModel();
  const steps = server.events.filter((e) => e.type === 'ensemble.step' && e.via === 'bls');
  assert.equal(steps.length, 3);
  let linked = 0;
  for (const e of server.events) {
    live.apply(e);
    if (e.type === 'request.queued' && e.model === 'add_sub' && live.requests.get(`add_sub:1/${e.request_id}`)?.parent?.startsWith('caller:1/')) linked++;
  }
  assert.equal(linked, 3);
});
