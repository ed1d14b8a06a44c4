import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { REPO, mlpConfig, loadModel } from './fixtures';

test('instances start and serve in a process run as `node --import tsx` (how the server runs)', async () => {
  const script = fileURLToPath(new URL('./serve-one-batch.script.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { timeout: 60_000 });
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), { shape: [2, 10] });
});

test('a missing or broken model file fails the load with a clear error', async () => {
  await assert.rejects(
    loadModel('mlp_classifier', mlpConfig(), { version: '9' }),
    new RegExp(`model file '${join(REPO, 'mlp_classifier/9/model.onnx').replace(/[/.]/g, '\\$&')}' does not exist`),
  );
});
