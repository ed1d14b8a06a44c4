// The stub backends follow the scheduler's one dispatch rule (issue 30): a batch handed to a busy stub is
// written to it at once, and the scheduler can take it back (StubExecutor.reclaim, decided by the claim
// words the stub shares: claim-region.ts) until the stub begins it, and give it to an instance that frees
// up first. A batch taken back never begins there; a stub killed meanwhile fails only the batch it ran.
// Real stubs: python, and the two pytorch stubs (native and Python), whose claim code is their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, type SchedulerEvent } from '@inferscope/core';
import { RealClock } from '@inferscope/core/clock';
import { ModelScheduler } from '@inferscope/core/scheduler/model-scheduler.ts';
import type { ModelConfig } from '@inferscope/core/config';
import type { Executor, InferPayload, InferResult } from '@inferscope/core';
import type { StubExecutor } from '../../apps/server/src/backends/stub/executor';
import { instance, request } from './fixtures';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADD_SUB_PY, NO_NUMPY, PYTHON, TORCH_STUBS, loadStub, tempRepo } from './stub-fixtures.ts';
import type { TorchStubChoice } from '../../apps/server/src/backends/pytorch/native-stub';
import { waitFor } from '../support/wait';

/** add_sub whose execute() prints what it runs and sleeps INPUT0's first value / 10 seconds when it is 2 or more */
const sleepyAddSub = ADD_SUB_PY.replace(
  '        responses = []\n',
  '        responses = []\n        import time\n        v = float(pb_utils.get_input_tensor_by_name(requests[0], "INPUT0").as_numpy().flat[0])\n        print("execute", v)\n        if v >= 2:\n            time.sleep(v / 10)\n',
);

/** The same as TorchScript: prints what it runs, and spins for about as long (no sleep in TorchScript). */
const SLEEPY_TORCH = `
import torch
class M(torch.nn.Module):
    def forward(self, INPUT0, INPUT1):
        v = float(INPUT0[0, 0].item())
        print("execute", v)
        if v >= 2:
            y = INPUT0
            for i in range(int(v * 20000)):
                y = torch.sin(y)
        return INPUT0 + INPUT1, INPUT0 - INPUT1
`;

const config = (count: number, backend = 'python'): ModelConfig => ({
  name: 'sleepy',
  backend,
  max_batch_size: 1,
  dynamic_batching: {},
  input: [
    { name: 'INPUT0', data_type: 'TYPE_FP32', dims: [4] },
    { name: 'INPUT1', data_type: 'TYPE_FP32', dims: [4] },
  ],
  output: [
    { name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [4] },
    { name: 'OUTPUT1', data_type: 'TYPE_FP32', dims: [4] },
  ],
  instance_group: [{ name: 'sleepy_0', kind: 'KIND_CPU', count }],
});

const sample = (v: number) =>
  request([
    { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: new Float32Array([v, v, v, v]) },
    { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: new Float32Array([1, 1, 1, 1]) },
  ]);
const sum = (r: InferResult[]) => Array.from(r[0][0].data as Float32Array);

const KINDS: { name: string; skip: string | false; torchStub?: TorchStubChoice }[] = [
  { name: 'python model', skip: NO_NUMPY },
  ...TORCH_STUBS.map((t) => ({ name: `TorchScript model on the ${t.stub} stub`, skip: t.skip, torchStub: t.stub })),
];

for (const kind of KINDS) test(`${kind.name}: a batch held behind a busy stub is taken back before it begins, never runs there, and not once the stub began it`, { skip: kind.skip }, async () => {
  const repo = tempRepo();
  const torch = kind.torchStub !== undefined;
  if (torch) {
    repo.add('sleepy', '', {});
    const script = join(repo.dir, 'sleepy_def.py'); // torch.jit.script reads the class's source from its file
    writeFileSync(script, `${SLEEPY_TORCH}\ntorch.jit.script(M()).save(${JSON.stringify(join(repo.dir, 'sleepy/1/model.pt'))})\n`);
    execFileSync(PYTHON, [script]);
  } else {
    repo.add('sleepy', '', { 'model.py': sleepyAddSub });
  }
  const { loaded, logs } = await loadStub(repo.dir, 'sleepy', config(2, torch ? 'pytorch' : 'python'), torch ? 'model.pt' : 'model.py', { torchStub: kind.torchStub });
  const ex = loaded.executor as StubExecutor;
  const [i0, i1] = [instance('sleepy_0_0'), instance('sleepy_0_1')];
  try {
    await ex.startInstance(i0);
    await ex.startInstance(i1);
    const slow = ex.execute(i0, [sample(5)]); // 0.5 s
    const held = [sample(1)];
    let heldAnswers = 0;
    ex.executeWithCallback(i0, held, () => heldAnswers++);
    assert.equal(ex.stubOf(i0.name)!.inFlight, 2, 'the stub owes both');
    assert.equal(ex.reclaim(i0, held), true, 'not begun by the busy stub yet: taken back');
    assert.equal(ex.reclaim(i0, held), false, 'only once');
    assert.equal(ex.stubOf(i0.name)!.inFlight, 1);
    assert.deepEqual(sum(await ex.execute(i1, held)), [2, 2, 2, 2], 'it runs on the other instance');
    // behind the slow one again: the stub begins it when the slow one ends, and then it is not taken back
    const next = [sample(3)];
    const nextDone = new Promise<InferResult[]>((resolve, reject) => ex.executeWithCallback(i0, next, (err, r) => (err ? reject(err) : resolve(r!))));
    assert.deepEqual(sum(await slow), [6, 6, 6, 6]);
    const stub = ex.stubOf(i0.name)!;
    const [nextId] = stub.owedIds();
    await waitFor(() => stub.begun(nextId), 'the stub to begin the batch behind the slow one');
    assert.equal(ex.reclaim(i0, next), false, 'the stub began it');
    assert.deepEqual(sum(await nextDone), [4, 4, 4, 4]);
    assert.equal(heldAnswers, 0, 'a batch taken back is never answered from its first stub');
    // what the first stub's execute() ran, from its prints (stdout is a pipe of its own: wait for the line)
    const ran = () => logs.filter((l) => l.includes('sleepy_0_0') && / execute /.test(l)).map((l) => Number(l.split('execute ')[1]));
    await waitFor(() => ran().includes(3), "the stub's print of the last batch");
    assert.deepEqual(ran(), [5, 3], 'the stub never began the batch taken back');
  } finally {
    await loaded.unload();
    repo.remove();
  }
});

test('through the scheduler: the batch held behind the slower stub runs on the stub that frees up first', { skip: NO_NUMPY }, async () => {
  const repo = tempRepo();
  repo.add('sleepy', '', { 'model.py': sleepyAddSub });
  const { loaded } = await loadStub(repo.dir, 'sleepy', config(2), 'model.py');
  const bus = new EventBus();
  const events: SchedulerEvent[] = [];
  bus.on((e) => events.push(e));
  // the stub executor as it is, with every hand-off recorded ("instance:first request id")
  const inner = loaded.executor as StubExecutor;
  const handed: string[] = [];
  const executor: Executor<InferPayload, InferResult> = {
    prefetch: inner.prefetch,
    reclaim: (info, batch) => inner.reclaim(info, batch),
    startInstance: (info) => inner.startInstance(info),
    stopInstance: (info) => inner.stopInstance(info),
    execute: (info, batch) => inner.execute(info, batch),
    executeWithCallback: (info, batch, done) => {
      handed.push(`${info.name}:${batch[0].id}`);
      inner.executeWithCallback(info, batch, done);
    },
  };
  const sched = new ModelScheduler({ model: 'sleepy', version: '1', config: config(2), clock: new RealClock(), bus, executor });
  try {
    await sched.start();
    const order: string[] = [];
    const run = (id: string, v: number) => sched.enqueue({ ...sample(v), id }).then((r) => (order.push(id), r));
    const long = run('long', 20); // 2 s on sleepy_0_0
    const short = run('short', 2); // 0.2 s on sleepy_0_1
    const third = run('third', 1); // queued while both run: held behind the one busy longest
    await Promise.all([long, short, third]);
    const formedOf = (id: string) => events.find((e) => e.type === 'batch.formed' && e.request_ids[0] === id) as Extract<SchedulerEvent, { type: 'batch.formed' }>;
    const ranOn = (id: string) => (events.find((e) => e.type === 'batch.started' && e.batch_id === formedOf(id).batch_id) as Extract<SchedulerEvent, { type: 'batch.started' }>).instance;
    assert.notEqual(ranOn('long'), ranOn('short'));
    assert.equal(handed.find((h) => h.endsWith(':third')), `${ranOn('long')}:third`, 'handed early to the stub busy longest');
    assert.equal(ranOn('third'), ranOn('short'), 'it moved to the stub that freed up first');
    assert.deepEqual(order, ['short', 'third', 'long']);
  } finally {
    await sched.stop();
    await loaded.unload();
    repo.remove();
  }
});
