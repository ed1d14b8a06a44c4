/**
 * A stateful Triton `python` model through the real server: the sequence batcher's control inputs (START,
 * READY, CORRID) and implicit state reach model.py as ordinary input tensors, and the state output it
 * returns comes back as the next step's state, never to the client (Triton's python backend does the same).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';

const CONFIG = `name: "py_counter"
backend: "python"
max_batch_size: 2
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "SEEN_ID" data_type: TYPE_UINT64 dims: [ 1 ] } ]
sequence_batching {
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
  ]
  state [ { input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ 1 ] } ]
}
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

const MODEL = `import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "INPUT").as_numpy()
            start = pb_utils.get_input_tensor_by_name(request, "START").as_numpy()
            ready = pb_utils.get_input_tensor_by_name(request, "READY").as_numpy()
            corrid = pb_utils.get_input_tensor_by_name(request, "CORRID").as_numpy()
            state = pb_utils.get_input_tensor_by_name(request, "INPUT_STATE").as_numpy()
            total = (state * (1 - start) + x) * ready
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("OUTPUT", total.astype(np.int32)),
                pb_utils.Tensor("SEEN_ID", corrid.astype(np.uint64)),
                pb_utils.Tensor("OUTPUT_STATE", total.astype(np.int32)),
            ]))
        return responses
`;

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };

before(async () => {
  repo = await tempRepository([]);
  await mkdir(join(repo.dir, 'py_counter', '1'), { recursive: true });
  await writeFile(join(repo.dir, 'py_counter', 'config.pbtxt'), CONFIG);
  await writeFile(join(repo.dir, 'py_counter', '1', 'model.py'), MODEL);
  server = await startTestServer({ modelRepositories: [repo.dir], live: false });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

async function step(id: number, value: number, flags: { start?: boolean; end?: boolean } = {}) {
  const res = await fetch(`${server.url}/v2/models/py_counter/infer`, {
    method: 'POST',
    body: JSON.stringify({
      parameters: { sequence_id: id, sequence_start: flags.start ?? false, sequence_end: flags.end ?? false },
      inputs: [{ name: 'INPUT', datatype: 'INT32', shape: [1, 1], data: [value] }],
    }),
  });
  const body = await res.json() as { outputs?: { name: string; data: number[] }[]; error?: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return Object.fromEntries(body.outputs!.map((o) => [o.name, o.data[0]]));
}

test('model.py reads START, READY, CORRID and its state as inputs; its state output feeds the next step', async (t) => {
  const index = await (await fetch(`${server.url}/v2/repository/index`, { method: 'POST', body: '{}' })).json() as { name: string; state: string; reason?: string }[];
  const row = index.find((m) => m.name === 'py_counter');
  if (row?.state !== 'READY' && /numpy|python/i.test(row?.reason ?? '')) {
    t.skip(`the python backend cannot run here: ${row?.reason}`);
    return;
  }
  assert.equal(row?.state, 'READY', row?.reason);
  assert.deepEqual(await step(31, 5, { start: true }), { OUTPUT: 5, SEEN_ID: 31 });
  assert.deepEqual(await step(31, 7), { OUTPUT: 12, SEEN_ID: 31 }, 'no OUTPUT_STATE for the client');
  assert.deepEqual(await step(32, 100, { start: true }), { OUTPUT: 100, SEEN_ID: 32 });
  assert.deepEqual(await step(31, 1, { end: true }), { OUTPUT: 13, SEEN_ID: 31 });
  assert.deepEqual(await step(32, 1, { end: true }), { OUTPUT: 101, SEEN_ID: 32 });
});
