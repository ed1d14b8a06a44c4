// Stub processes as instances: a stub killed mid-batch fails only that batch and is restarted (the batch
// prefetched behind it is sent again, exactly once), memory is the stub's measured VmRSS and the budget
// refuses what does not fit, live instance-count changes start and stop processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelConfig } from '@inferscope/core/config';
import type { StubExecutor } from '../../apps/server/src/backends/stub/executor';
import { childPids } from '../../apps/server/src/backends/stub/proc-memory';
import { startTestServer } from '../support/server.ts';
import { instance, request } from './fixtures';
import { ADD_SUB_PY, NO_NUMPY, addSubConfig, inferJson, loadStub, modelIndex, tempRepo } from './stub-fixtures.ts';
import { waitFor } from '../support/wait.ts';

/** add_sub whose execute() says when it begins (stdout -> server log) and then takes `seconds`. */
const slowAddSub = (seconds: number) =>
  ADD_SUB_PY.replace('        responses = []\n', `        responses = []\n        print("begin", len(requests), flush=True)\n        import time\n        time.sleep(${seconds})\n`);

const slowConfig = (): ModelConfig => ({
  name: 'slow',
  backend: 'python',
  max_batch_size: 8,
  input: [
    { name: 'INPUT0', data_type: 'TYPE_FP32', dims: [4] },
    { name: 'INPUT1', data_type: 'TYPE_FP32', dims: [4] },
  ],
  output: [
    { name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [4] },
    { name: 'OUTPUT1', data_type: 'TYPE_FP32', dims: [4] },
  ],
  instance_group: [{ name: 'slow_0', kind: 'KIND_CPU', count: 1 }],
});

const sample = (v: number) =>
  request([
    { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: new Float32Array([v, v, v, v]) },
    { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: new Float32Array([1, 1, 1, 1]) },
  ]);


test('a stub killed mid-batch fails that batch only; the prefetched batch runs on the restarted stub', { skip: NO_NUMPY }, async () => {
  const repo = tempRepo();
  repo.add('slow', '', { 'model.py': slowAddSub(0.3) });
  const { loaded, ledger, logs } = await loadStub(repo.dir, 'slow', slowConfig(), 'model.py');
  const ex = loaded.executor as StubExecutor;
  const inst = instance('slow_0_0');
  try {
    await ex.startInstance(inst);
    const first = ex.stubOf(inst.name)!;
    const pid = first.pid!;
    const running = ex.execute(inst, [sample(1)]);
    const queued = ex.execute(inst, [sample(2)]); // prefetch: sent while the first one runs
    await waitFor(() => logs.some((l) => l.includes('[slow/1/slow_0_0] begin 1')), 'the first batch to begin');
    process.kill(pid, 'SIGKILL');
    await assert.rejects(running, /stub process of instance slow_0_0 of model 'slow' was killed by SIGKILL/);
    const [res] = await queued;
    assert.deepEqual(Array.from(res[0].data as Float32Array), [3, 3, 3, 3], 'the batch that never began ran on the replacement');
    assert.notEqual(ex.stubOf(inst.name)?.pid, pid);
    assert.equal(ex.describe()[0].restarts, 1);
    assert.ok(logs.some((l) => /restarting instance slow_0_0 \(restart 1\)/.test(l)), logs.join('\n'));
    const [again] = await ex.execute(inst, [sample(5)]);
    assert.deepEqual(Array.from(again[0].data as Float32Array), [6, 6, 6, 6]);
    const entries = ledger.snapshot().flatMap((d) => d.entries);
    assert.equal(entries.length, 1, 'the restarted instance keeps one memory entry');
  } finally {
    await loaded.unload();
    repo.remove();
  }
  assert.equal(ledger.snapshot().flatMap((d) => d.entries).length, 0, 'unload releases the memory');
});

test('through the server: killing the stub under load answers every request exactly once', { skip: NO_NUMPY }, async () => {
  const repo = tempRepo();
  repo.add('slow', addSubConfig('slow'), { 'model.py': slowAddSub(0.05) });
  const logs: string[] = [];
  const server = await startTestServer({ modelRepositories: [repo.dir], log: (m) => logs.push(m) });
  try {
    const body = [
      { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] },
      { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] },
    ];
    const stubPid = () => Number(/stub pid (\d+)/.exec(logs.join('\n'))?.[1]);
    const replies = Array.from({ length: 40 }, () => inferJson(server.url, 'slow', body));
    await waitFor(() => logs.some((l) => l.includes('[slow/1/slow_0_0] begin')), 'a batch to begin');
    process.kill(stubPid(), 'SIGKILL');
    const done = await Promise.all(replies);
    const ok = done.filter((r) => r.status === 200);
    const failed = done.filter((r) => r.status !== 200);
    assert.equal(ok.length + failed.length, 40);
    // The batch that was running when the stub died fails, and only it: a python batch is never re-run in
    // parts on the restarted stub (execute() may already have acted on its requests; isolate-failures.ts).
    assert.ok(failed.length >= 1 && failed.length <= 8, `only the running batch fails (max_batch_size 8): ${failed.length} failed`);
    for (const f of failed) assert.match(f.body.error, /was killed by SIGKILL/);
    for (const r of ok) assert.deepEqual(r.body.outputs[0].data, [2, 2, 2, 2]);
    // each request id answered once: one request.completed per accepted request
    const completed = server.events.filter((e) => e.type === 'request.completed' && e.model === 'slow');
    assert.equal(completed.length, 40);
    assert.equal(new Set(completed.map((e) => (e as { request_id: string }).request_id)).size, 40);
    assert.equal((await inferJson(server.url, 'slow', body)).status, 200, 'the restarted stub serves');
  } finally {
    await server.close();
    repo.remove();
  }
});

test('memory: the stub VmRSS is measured; the budget refuses an instance or a live count that does not fit', { skip: NO_NUMPY }, async () => {
  const repo = tempRepo();
  repo.add('add_sub', addSubConfig(), { 'model.py': ADD_SUB_PY });
  const server = await startTestServer({ modelRepositories: [repo.dir], memoryBudget: { cpu: 150 * 1024 * 1024 } });
  try {
    const entries = server.built.memory.snapshot().flatMap((d) => d.entries.map((e) => ({ ...e, device: d.device })));
    assert.equal(entries.length, 1);
    assert.equal(entries[0].source, 'measured');
    assert.equal(entries[0].device, 'cpu');
    // an interpreter with numpy is tens of MiB resident; the weights-only estimate would be ~4 MiB
    assert.ok(entries[0].bytes > 15 * 1024 * 1024 && entries[0].bytes < 150 * 1024 * 1024, `${entries[0].bytes} bytes`);

    const stubs = () => childPids(process.pid).length;
    const before = stubs();
    await server.built.manager.setInstanceCount('add_sub', 1, undefined, 2, 'test');
    assert.equal(stubs(), before + 1, 'a live count increase starts one more stub process');
    assert.equal(server.built.memory.snapshot().flatMap((d) => d.entries).length, 2);
    await assert.rejects(server.built.manager.setInstanceCount('add_sub', 1, undefined, 6, 'test'), /adding 4 instances of model 'add_sub' version 1 needs .* MiB on cpu, only .* MiB of the budget 150\.0 MiB is free/);
    await server.built.manager.setInstanceCount('add_sub', 1, undefined, 1, 'test');
    await waitFor(() => stubs() === before, 'the retired stub to exit');
    assert.equal(server.built.memory.snapshot().flatMap((d) => d.entries).length, 1);
  } finally {
    await server.close();
    repo.remove();
  }
  // a budget smaller than one stub refuses the load itself
  const small = tempRepo();
  small.add('add_sub', addSubConfig(), { 'model.py': ADD_SUB_PY });
  const tight = await startTestServer({ modelRepositories: [small.dir], memoryBudget: { cpu: 8 * 1024 * 1024 } });
  try {
    const m = (await modelIndex(tight.url)).find((x) => x.name === 'add_sub');
    assert.equal(m?.state, 'UNAVAILABLE');
    assert.match(m?.reason ?? '', /loading instance add_sub_0_0 of model 'add_sub' version 1 needs .* MiB on cpu, only 8\.0 MiB of the budget 8\.0 MiB is free/);
  } finally {
    await tight.close();
    small.remove();
  }
});

test('unload: a stub whose finalize() hangs is killed after the grace period and reaped', { skip: NO_NUMPY }, async () => {
  const repo = tempRepo();
  repo.add('slow', '', { 'model.py': ADD_SUB_PY.replace('    def finalize(self):\n', '    def finalize(self):\n        import time\n        time.sleep(60)\n') });
  const { loaded } = await loadStub(repo.dir, 'slow', slowConfig(), 'model.py');
  const ex = loaded.executor as StubExecutor;
  try {
    await ex.startInstance(instance('slow_0_0'));
    const pid = ex.describe()[0].pid!;
    const t0 = Date.now();
    await loaded.unload();
    const took = Date.now() - t0;
    assert.ok(took >= 4000 && took < 30_000, `killed after the 5 s grace, took ${took} ms`);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the process is gone (reaped, not a zombie)');
  } finally {
    repo.remove();
  }
});
