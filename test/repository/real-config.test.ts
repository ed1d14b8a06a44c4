// The ModelManager with the REAL config engine (pbtxt parser, normaliser, validator, printer) and fake
// backends/scheduler: config errors carry line/column, live edits are validated by Triton's rules, and
// saveConfig writes pbtxt that parses back to the live config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EventBus } from '@inferscope/core';
import { parseModelConfig, normalizeModelConfig } from '@inferscope/core/config';
import { ModelManager } from '../../apps/server/src/models/model-manager.ts';
import { defaultRuntime } from '../../apps/server/src/models/default-runtime.ts';
import { MemoryLedger } from '../../apps/server/src/memory/ledger.ts';
import { fakeRuntime, makeRepository } from './fakes.ts';

const PBTXT = `# a comment the user wrote
name: "m"
platform: "onnxruntime_onnx"
max_batch_size: 16
input [ { name: "x", data_type: TYPE_FP32, dims: [ 4 ] } ]
output [ { name: "y", data_type: TYPE_FP32, dims: [ 4 ] } ]
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 100
}
`;

function managerWithRealConfig(repo: string, mode: 'none' | 'poll' = 'none') {
  const fake = fakeRuntime();
  const real = defaultRuntime({ memory: new MemoryLedger() });
  const runtime = { ...fake, config: real.config };
  const m = new ModelManager({ repositories: [repo], controlMode: mode, gpuCount: 0, bus: new EventBus(), runtime });
  return { m, fake };
}

test('real engine: syntax and validation errors become reasons with line and column', async () => {
  const repo = await makeRepository({
    'm/config.pbtxt': PBTXT, 'm/1/model.onnx': 'x',
    'syntax/config.pbtxt': 'platform: "onnxruntime_onnx"\nmax_batch_size: 4\nnot_a_field: 3\n', 'syntax/1/model.onnx': 'x',
    'rule/config.pbtxt': 'platform: "onnxruntime_onnx"\nmax_batch_size: 4\ninput [ { name: "x", data_type: TYPE_FP32, dims: [ 4 ] } ]\noutput [ { name: "y", data_type: TYPE_FP32, dims: [ 4 ] } ]\ndynamic_batching {\n  preferred_batch_size: [ 8 ]\n}\n',
    'rule/1/model.onnx': 'x',
  });
  const { m } = managerWithRealConfig(repo);
  await m.start();
  const reason = (n: string) => m.list().find((r) => r.name === n)!.reason ?? '';
  assert.equal(m.require('m').state, 'READY');
  assert.match(reason('syntax'), /not_a_field.*line 3, column 1/);
  assert.match(reason('rule'), /preferred.*max batch size.*\(line \d+, column \d+\)/i);
  await m.close();
});

test('real engine: live edits validated by Triton rules and saved as pbtxt that parses back', async () => {
  const repo = await makeRepository({ 'm/config.pbtxt': PBTXT, 'm/1/model.onnx': 'x' });
  const { m, fake } = managerWithRealConfig(repo, 'poll');
  await m.start();
  await assert.rejects(m.updateDynamicBatching('m', undefined, { preferred_batch_size: [32] }, 't'), /preferred/);
  await m.updateDynamicBatching('m', undefined, { max_queue_delay_microseconds: 2500, preferred_batch_size: [4, 16] }, 'test');
  await m.setInstanceCount('m', undefined, undefined, 2, 'test');
  const saved = await m.saveConfig('m');
  const text = await readFile(join(repo, 'm/config.pbtxt'), 'utf8');
  assert.equal(text, saved.text);
  assert.match(text, /^# a comment the user wrote\nname: "m"/, 'the file is edited in place: comments and order survive');
  assert.equal(await readFile(join(repo, 'm/config.pbtxt.bak'), 'utf8'), PBTXT);
  const reparsed = normalizeModelConfig(parseModelConfig(text), { modelName: 'm', gpuCount: 0 });
  const live = m.require('m').config;
  assert.deepEqual(reparsed.dynamic_batching, live.dynamic_batching);
  assert.equal(reparsed.instance_group?.[0].count, 2);
  assert.equal(reparsed.max_batch_size, 16);
  assert.match(saved.diff, /^-.*max_queue_delay_microseconds: 100/m);
  assert.match(saved.diff, /^\+.*2500/m);
  // The saved file is the live config: a poll leaves the model alone.
  assert.deepEqual((await m.poll()).unchanged, ['m']);
  assert.equal(fake.schedulers.length, 1);
  // Editing the file by hand IS a change: the model reloads with it.
  await writeFile(join(repo, 'm/config.pbtxt'), PBTXT.replace('max_queue_delay_microseconds: 100', 'max_queue_delay_microseconds: 7'));
  assert.deepEqual((await m.poll()).modified, ['m']);
  assert.equal(m.require('m').config.dynamic_batching?.max_queue_delay_microseconds, 7);
  await m.close();
});
