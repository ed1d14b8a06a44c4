/** The product's test hooks answer only where the test harness asked for them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { InstanceWorker, TEST_HOOKS_ENV } from '../../apps/server/src/backends/onnxruntime/instance-worker';

test('the worker\'s crash() is refused unless the harness set the test-hooks switch', () => {
  const before = process.env[TEST_HOOKS_ENV];
  const posted: unknown[] = [];
  const w = Object.create(InstanceWorker.prototype) as InstanceWorker;
  (w as unknown as { post(m: unknown): void }).post = (m) => posted.push(m);
  try {
    delete process.env[TEST_HOOKS_ENV];
    assert.throws(() => w.crash('throw'), new RegExp(TEST_HOOKS_ENV));
    assert.deepEqual(posted, [], 'nothing reaches the worker');
    process.env[TEST_HOOKS_ENV] = '1';
    w.crash('exit');
    assert.deepEqual(posted, [{ type: 'crash', how: 'exit' }]);
  } finally {
    if (before === undefined) delete process.env[TEST_HOOKS_ENV];
    else process.env[TEST_HOOKS_ENV] = before;
  }
  // and the worker thread itself obeys it only when told so at its start
  const worker = readFileSync(new URL('../../apps/server/src/backends/onnxruntime/worker.mjs', import.meta.url), 'utf8');
  assert.match(worker, /case 'crash': \{\s*\/\/[^\n]*\n\s*if \(workerData\?\.testHooks !== true\) return;/);
});

test('the dashboard installs its window hooks only on a page the harness flagged', () => {
  // every hook goes through exposeForTests; none is assigned to window directly
  const files = ['views/DataView.tsx', 'store/app-store.ts', 'live/clock.ts', 'charts/frame-loop.ts'];
  for (const f of files) {
    const src = readFileSync(new URL(`../../apps/web/src/${f}`, import.meta.url), 'utf8');
    assert.match(src, /exposeForTests\('__inferscope/, f);
    assert.doesNotMatch(src, /window\.__inferscope\w*\s*=/, `${f} sets a window hook itself`);
  }
});
