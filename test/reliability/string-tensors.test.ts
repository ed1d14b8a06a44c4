/**
 * A model with a TYPE_STRING input (issue 13, item 8) loaded READY and then answered 500 to every valid
 * BYTES request. The onnxruntime backend now serves string tensors: BYTES elements go to the session as
 * UTF-8 strings and come back as bytes, batched like any other input (an Identity model echoes them).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GraphBuilder } from '../../apps/server/src/model-generator/onnx-builder.ts';
import { startServer, type Running } from './harness.ts';

let dir: string;
let server: Running;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'is-str-'));
  const g = new GraphBuilder('shout');
  g.input('text', 'string', ['batch', 2]);
  g.node('Identity', ['text'], {}, 'shouted');
  g.output('shouted', 'string', ['batch', 2]);
  await mkdir(join(dir, 'shout/1'), { recursive: true });
  await writeFile(join(dir, 'shout/1/model.onnx'), g.encode('string test model'));
  await writeFile(join(dir, 'shout/config.pbtxt'), `name: "shout"
backend: "onnxruntime"
max_batch_size: 8
input [ { name: "text" data_type: TYPE_STRING dims: [ 2 ] } ]
output [ { name: "shouted" data_type: TYPE_STRING dims: [ 2 ] } ]
dynamic_batching { max_queue_delay_microseconds: 200000 }
`);
  server = await startServer({ repositories: [dir] });
});

after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const infer = (words: string[]) =>
  server.app.inject({
    method: 'POST',
    url: '/v2/models/shout/infer',
    payload: { inputs: [{ name: 'text', datatype: 'BYTES', shape: [1, 2], data: words }] },
  });

test('BYTES requests to a TYPE_STRING onnxruntime model are served, batched, each with its own strings', { timeout: 60_000 }, async () => {
  const words = [['hello', 'wörld'], ['a', 'b'], ['triton', 'style'], ['', 'ß']];
  const first = server.events.length;
  const answers = await Promise.all(words.map(infer));
  for (const [i, res] of answers.entries()) {
    assert.equal(res.statusCode, 200, res.body);
    const out = res.json().outputs[0];
    assert.equal(out.datatype, 'BYTES');
    assert.deepEqual(out.shape, [1, 2]);
    assert.deepEqual(out.data, words[i]);
  }
  const batches = server.events.slice(first).filter((e) => e.type === 'batch.formed') as { size: number }[];
  assert.ok(batches.some((b) => b.size > 1), `never batched: ${batches.map((b) => b.size)}`);
});
