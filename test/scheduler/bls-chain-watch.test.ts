/**
 * A BLS request already queued when its target's instances change (issue 56), on the VirtualClock with
 * core's scheduler: the deadlock check of infer/call-chain.ts is made again when an instance drains, so
 * a request that could now only run on an instance its own call chain holds is taken out at once with the
 * deadlock error, and one that still has a free instance waits and runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enqueueCancellable } from '../../apps/server/src/infer/cancellable.ts';
import { watchChain, type ChainLink } from '../../apps/server/src/infer/call-chain.ts';
import { Harness } from './helpers.ts';

const flush = () => new Promise((resolve) => setImmediate(resolve));

async function twoBusyInstances(): Promise<{ h: Harness; names: string[] }> {
  const h = new Harness({ max_batch_size: 0, instance_group: [{ name: 'g', count: 2, kind: 'KIND_CPU' }] });
  await h.start();
  h.send('x');
  h.send('y');
  assert.equal(h.exec.running.length, 2, 'both instances busy');
  return { h, names: h.exec.running.map((b) => b.instance.name) };
}

function chained(h: Harness, holder: string): Promise<string> {
  const chain: ChainLink[] = [{ model: 'm', version: '1', instance: holder, held: true }];
  const instances = () => h.sched.snapshot().instances;
  const req = { id: 'bls', batchSize: 1, shapeKey: '', payload: 'bls' };
  return enqueueCancellable(h.sched as never, req as never, undefined, watchChain(h.bus, chain, 'm', '1', instances)) as unknown as Promise<string>;
}

test('lowering the instance count under a queued BLS request: refused at once when only its chain holds what is left', async () => {
  const { h, names } = await twoBusyInstances();
  // the chain holds the instance running x (names[0]); the other runs y, unrelated
  const call = chained(h, names[0]!);
  const settled = call.then(() => 'ran', (e: Error) => e.message);
  await h.sched.setInstanceCount(undefined, 1, 'test');
  const draining = h.sched.snapshot().instances.filter((i) => i.state === 'draining' || i.state === 'stopped').map((i) => i.name);
  await flush();
  assert.deepEqual(draining, [names[1]], 'the scheduler drains its newest instance');
  assert.equal(await settled, "BLS deadlock: m -> m: model 'm' has 1 instance and it is held by this call's own chain");
  assert.ok(!h.exec.all.some((b) => b.requests.some((r) => r.id === 'bls')), 'it never ran');
});

test('a queued BLS request with an instance free of its chain waits through an instance change and runs', async () => {
  const { h, names } = await twoBusyInstances();
  // the chain holds an instance of another model: every instance of m may still take the call
  const chain: ChainLink[] = [{ model: 'other', version: '1', instance: names[0]!, held: true }];
  const req = { id: 'bls', batchSize: 1, shapeKey: '', payload: 'bls' };
  const call = enqueueCancellable(h.sched as never, req as never, undefined, watchChain(h.bus, chain, 'm', '1', () => h.sched.snapshot().instances));
  await h.sched.setInstanceCount(undefined, 1, 'test');
  await flush();
  while (h.exec.running.length > 0 && !h.exec.running.some((b) => b.requests[0]?.id === 'bls')) h.exec.finish(0);
  await flush();
  const bls = h.exec.running.find((b) => b.requests[0]?.id === 'bls');
  assert.ok(bls, 'the call ran');
  h.exec.finish(h.exec.running.indexOf(bls));
  assert.equal(await call, 'ok:bls');
});
