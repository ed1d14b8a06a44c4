// Per-request errors of a Triton python model, through the real server (numpy only): an error response
// for one request of a batch fails that request alone, with its message and the HTTP status Triton gives
// its code, and the requests batched with it are answered; an exception in execute() fails every request
// of its batch with the message. In both cases execute() sees each request exactly once: the failed
// batch is never re-run in parts (isolate-failures splits only backends whose runs are pure).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { NO_NUMPY, addSubConfig, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';

const REFUSE = -7; // the model answers this request with an error response (TritonError, INVALID_ARG)
const RAISE = -9; // the model raises in execute() for the batch holding this request

/** add_sub in Triton's style that logs every execute() call (the INPUT0[0, 0] of each request, one line per call). */
const MARKED_PY = `
import json
import os
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.calls = os.path.join(args["model_repository"], "calls.log")

    def execute(self, requests):
        values = [float(pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy()[0, 0]) for r in requests]
        with open(self.calls, "a") as f:
            f.write(",".join("%g" % v for v in values) + "\\n")
        if ${RAISE} in values:
            raise RuntimeError("marker ${RAISE} found: this batch cannot be served")
        responses = []
        for request, v in zip(requests, values):
            if v == ${REFUSE}:
                err = pb_utils.TritonError("value %g is refused" % v, pb_utils.TritonError.INVALID_ARG)
                responses.append(pb_utils.InferenceResponse(output_tensors=[], error=err))
                continue
            in_0 = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            in_1 = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", in_0 + in_1), pb_utils.Tensor("OUTPUT1", in_0 - in_1)]))
        return responses
`;

const BURST = 6;
let repo: TempRepo;
let server: TestServer;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo();
  // A batch goes out when it holds the whole burst (preferred size), whatever the machine's speed.
  const config = addSubConfig('marked').replace(
    'dynamic_batching { max_queue_delay_microseconds: 20000 }',
    `dynamic_batching { preferred_batch_size: [ ${BURST} ] max_queue_delay_microseconds: 10000000 }`,
  );
  repo.add('marked', config, { 'model.py': MARKED_PY });
  server = await startTestServer({ modelRepositories: [repo.dir] });
});

after(async () => {
  await server?.close();
  repo?.remove();
});

const request = (v: number) => [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [v, 1, 2, 3] },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] },
];

/** The execute() calls so far: each the INPUT0[0, 0] values of its requests. */
const calls = (): number[][] => {
  const file = join(repo.dir, 'marked', 'calls.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(',').map(Number));
};

/** One burst of requests with these first values, sent together so they share one batch. */
async function burst(values: number[]) {
  const before = server.events.length;
  const answers = await Promise.all(values.map((v) => inferJson(server.url, 'marked', request(v))));
  const sizes = server.events.slice(before).filter((e) => e.type === 'batch.formed' && e.model === 'marked').map((e) => (e as { size: number }).size);
  assert.deepEqual(sizes, [values.length], 'the burst ran as one batch');
  return answers;
}

test('an error response fails only its own request, with its message and status; the batch\'s others are answered', { skip: NO_NUMPY }, async () => {
  for (const at of [0, 3, BURST - 1]) {
    const values = Array.from({ length: BURST }, (_, i) => (i === at ? REFUSE : 10 * (at + 1) + i));
    const seen = calls().length;
    const answers = await burst(values);
    answers.forEach((r, i) => {
      if (i === at) {
        assert.equal(r.status, 400, `INVALID_ARG is HTTP 400 in Triton: ${JSON.stringify(r.body)}`);
        assert.match(r.body.error, /^value -7 is refused$/, 'the model\'s own message, as it wrote it');
        return;
      }
      assert.equal(r.status, 200, `request ${i} (refused at ${at}): ${JSON.stringify(r.body)}`);
      const out = Object.fromEntries(r.body.outputs.map((o: { name: string; data: number[] }) => [o.name, o.data]));
      assert.deepEqual(out.OUTPUT0, [values[i] + 1, 2, 3, 4]);
      assert.deepEqual(out.OUTPUT1, [values[i] - 1, 0, 1, 2]);
    });
    assert.deepEqual(calls().slice(seen), [values], 'execute() ran once, on the whole batch: nothing re-run');
  }
});

test('an exception in execute() fails every request of its batch with the message, and execute() is not called again', { skip: NO_NUMPY }, async () => {
  const values = [1, 2, RAISE, 4, 5, 6];
  const seen = calls().length;
  const answers = await burst(values);
  for (const r of answers) {
    assert.equal(r.status, 500, JSON.stringify(r.body));
    assert.match(r.body.error, /execute\(\) of model 'marked' raised RuntimeError: marker -9 found: this batch cannot be served/);
  }
  assert.deepEqual(calls().slice(seen), [values], 'execute() saw each request of the failed batch exactly once');
  // the model keeps serving
  for (const r of await burst([11, 12, 13, 14, 15, 16])) assert.equal(r.status, 200, JSON.stringify(r.body));
});
