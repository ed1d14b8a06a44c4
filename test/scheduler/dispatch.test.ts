/**
 * Triton's dispatch rule, for every executor (issue 30): batches queued while every instance is busy wait in
 * one queue per model (payloads.ts), and an instance that becomes free takes the oldest, whichever it is. An executor that hides its
 * hand-off (prefetch 1 with reclaim) changes neither which batch runs first nor its size. All on the
 * VirtualClock; batch cost 2000 + 250 x n µs (the issue's), per instance scaled by its speed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, type SchedulerEvent } from '@inferscope/core/events.ts';
import { VirtualClock } from '@inferscope/core/clock';
import { Rng } from '@inferscope/core/load/rng.ts';
import { ModelScheduler } from '@inferscope/core/scheduler/model-scheduler.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import type { Executor, InstanceInfo, SchedulerRequest } from '@inferscope/core/scheduler/types.ts';

type Batch = readonly SchedulerRequest<null>[];
type Done = (error: unknown, results?: string[]) => void;

/**
 * Instances that run the batches they are handed one at a time, in order, each at its own speed (the
 * cost is multiplied by `slowness[index]`). With `prefetch`, a busy instance may be handed one batch; it
 * begins it the moment the running one ends, without the scheduler, unless taken back first (reclaim).
 */
class TimedExecutor implements Executor<null, string> {
  readonly prefetch: number;
  reclaim?: (instance: InstanceInfo, batch: Batch) => boolean;
  /** per instance: the running batch first, then the one it holds */
  private readonly jobs = new Map<string, { batch: Batch; done: Done }[]>();
  /** batch (first request id) -> [instance, when it really began] */
  readonly began = new Map<string, [string, number]>();
  /** every hand-off and take-back, as "instance:ids" */
  readonly handed: string[] = [];
  readonly reclaimed: string[] = [];

  constructor(
    private readonly clock: VirtualClock,
    private readonly slowness: number[],
    prefetch: boolean,
  ) {
    this.prefetch = prefetch ? 1 : 0;
    if (prefetch) {
      this.reclaim = (instance, batch) => {
        const q = this.jobs.get(instance.name) ?? [];
        const i = q.findIndex((j) => j.batch === batch);
        if (i <= 0) return false; // unknown, or running
        q.splice(i, 1);
        this.reclaimed.push(`${instance.name}:${batch.map((r) => r.id).join(',')}`);
        return true;
      };
    }
  }

  execute(): Promise<string[]> {
    throw new Error('callback form expected');
  }

  executeWithCallback(instance: InstanceInfo, batch: Batch, done: Done): void {
    const q = this.jobs.get(instance.name) ?? [];
    this.jobs.set(instance.name, q);
    assert.ok(q.length < 1 + this.prefetch, `${instance.name} handed a batch it has no room for`);
    this.handed.push(`${instance.name}:${batch.map((r) => r.id).join(',')}`);
    q.push({ batch, done });
    if (q.length === 1) this.run(instance);
  }

  private run(instance: InstanceInfo): void {
    const q = this.jobs.get(instance.name)!;
    const job = q[0];
    if (!job) return;
    const n = job.batch.reduce((s, r) => s + r.batchSize, 0);
    this.began.set(job.batch[0].id!, [instance.name, this.clock.now()]);
    this.clock.setTimer(this.clock.now() + (2000 + 250 * n) * this.slowness[instance.index], () => {
      q.shift();
      this.run(instance); // the instance goes straight on to the batch it holds
      job.done(null, job.batch.map((r) => r.id!));
    });
  }
}

function setup(config: SchedulerConfigInput, slowness: number[], prefetch: boolean) {
  const clock = new VirtualClock();
  const bus = new EventBus();
  const events: SchedulerEvent[] = [];
  bus.on((e) => events.push(e));
  const exec = new TimedExecutor(clock, slowness, prefetch);
  const sched = new ModelScheduler({ model: 'm', version: '1', config: { ...config, instance_group: [{ count: slowness.length, kind: 'KIND_CPU' }] }, clock, bus, executor: exec });
  const answered = new Map<string, number>();
  const send = (id: string, batchSize = 1) => sched.submit({ id, batchSize, shapeKey: '', payload: null }, () => answered.set(id, (answered.get(id) ?? 0) + 1));
  const formed = () => events.filter((e): e is Extract<SchedulerEvent, { type: 'batch.formed' }> => e.type === 'batch.formed');
  const started = (first: string) => {
    const f = formed().find((e) => e.request_ids[0] === first)!;
    const s = events.find((e): e is Extract<SchedulerEvent, { type: 'batch.started' }> => e.type === 'batch.started' && e.batch_id === f.batch_id)!;
    return { instance: s.instance, t: s.t, ids: f.request_ids, formedAt: f.t };
  };
  return { clock, events, exec, sched, send, answered, formed, started };
}

/**
 * Checks the rule on a finished run: no batch of only younger requests began before a batch of older
 * ones (acceptance order, one priority level), by the events and by when the executor really began it;
 * a batch's start event is when its instance began it; and never an idle instance beside a formed batch.
 */
function assertOldestFirst(s: ReturnType<typeof setup>, what: string): void {
  const seq = new Map<string, number>();
  for (const e of s.events) if (e.type === 'request.queued') seq.set(e.request_id, seq.size);
  const batches = s.formed().map((f) => {
    const st = s.events.find((e) => e.type === 'batch.started' && e.batch_id === f.batch_id) as { t: number; instance: string };
    const ids = f.request_ids.map((id) => seq.get(id)!);
    assert.deepEqual(s.exec.began.get(f.request_ids[0]), [st.instance, st.t], `${what}: ${f.batch_id} began where and when its event says`);
    return { id: f.batch_id, min: Math.min(...ids), max: Math.max(...ids), t: st.t };
  });
  for (const a of batches) {
    for (const b of batches) {
      if (a.max < b.min) assert.ok(a.t <= b.t, `${what}: ${b.id} (requests ${b.min}..${b.max}) began at ${b.t}, before the older ${a.id} (${a.min}..${a.max}) at ${a.t}`);
    }
  }
}

const config = (maxBatch: number, extra: object = {}): SchedulerConfigInput => ({ max_batch_size: maxBatch, dynamic_batching: { max_queue_delay_microseconds: 0, ...extra } });

test("issue 30's trace: a batch formed while both instances run goes to the one that frees first, before a younger one", () => {
  for (const prefetch of [false, true]) {
    // instance 0 runs a 3 from t=0 to 2750, instance 1 a 1 from t=100 to 2350
    const s = setup(config(3), [1, 1], prefetch);
    void s.sched.start();
    s.send('r0', 3);
    s.clock.advanceTo(100);
    s.send('r1');
    s.clock.advanceTo(1500);
    for (const id of ['r2', 's3', 's4']) s.send(id); // [r2, s3, s4] is full: a saturated payload
    s.clock.advanceTo(1600);
    for (const id of ['r5', 's6', 's7']) s.send(id); // [r5, s6, s7]: another, younger
    s.clock.runUntilIdle();
    const older = s.started('r2');
    const younger = s.started('r5');
    assert.equal(older.formedAt, 2350, 'a queued payload is formed when an instance takes it');
    assert.deepEqual([older.instance, older.t], ['m_0_1', 2350], `prefetch ${prefetch}: the older batch runs on the instance free first`);
    assert.deepEqual([younger.instance, younger.t], ['m_0_0', 2750], `prefetch ${prefetch}: the younger one after it`);
    assert.equal(s.answered.size, 8);
    assert.ok([...s.answered.values()].every((n) => n === 1));
    assertOldestFirst(s, `prefetch ${prefetch}`);
  }
});

test('with a fast hand-off the older batch is handed early to the instance busy longest, and taken back when the other frees first', () => {
  const s = setup(config(3), [1, 1], true);
  void s.sched.start();
  s.send('r0', 3);
  s.clock.advanceTo(100);
  s.send('r1');
  s.clock.advanceTo(1500);
  for (const id of ['r2', 's3', 's4']) s.send(id);
  s.clock.advance(0);
  assert.deepEqual(s.exec.handed.slice(2), ['m_0_0:r2,s3,s4'], 'handed early to the instance busy since t=0');
  s.clock.advanceTo(1600);
  for (const id of ['r5', 's6', 's7']) s.send(id);
  s.clock.advance(0);
  assert.equal(s.exec.handed.length, 3, 'only the oldest queued batch is ever held');
  s.clock.runUntilIdle();
  // m_0_1 freed first at 2350: [r2..] was taken back from m_0_0 and began there; m_0_0 then held [r5..]
  assert.deepEqual(s.exec.reclaimed, ['m_0_0:r2,s3,s4']);
  assert.deepEqual(s.exec.handed.slice(3), ['m_0_1:r2,s3,s4', 'm_0_0:r5,s6,s7']);
  const younger = s.events.find((e) => e.type === 'batch.started' && e.batch_id === s.formed()[3].batch_id) as { prefetched?: boolean };
  assert.equal(younger.prefetched, true, 'the younger was handed early once the older had begun, and began without a hand-off');
});

test('the class: 3 instances at different speeds, all busy, arrivals while busy: oldest first, with and without a fast hand-off', () => {
  for (const prefetch of [false, true]) {
    for (let seed = 1; seed <= 40; seed++) {
      const r = new Rng(seed);
      const slowness = [1, 1 + r.int(0, 30) / 10, 1 + r.int(0, 30) / 10];
      const maxBatch = r.int(1, 8);
      const preferred = maxBatch > 2 && r.next() < 0.5 ? [r.int(2, maxBatch)] : [];
      const s = setup(config(maxBatch, { preferred_batch_size: preferred, max_queue_delay_microseconds: r.next() < 0.5 ? 0 : r.int(100, 3000) }), slowness, prefetch);
      void s.sched.start();
      let t = 0;
      const n = r.int(30, 200);
      for (let i = 0; i < n; i++) {
        t += Math.round(r.expGapUs(1e6 / r.int(100, 1500)));
        s.clock.setTimer(t, () => s.send(`q${i}`, r.int(1, Math.min(maxBatch, 3))));
      }
      let steps = 0;
      while (s.clock.step()) {
        assert.ok(++steps < 1_000_000);
        const snap = s.sched.snapshot();
        // an idle instance never sits beside a formed batch not begun
        if (snap.instances.some((i) => i.state === 'idle')) {
          const formed = new Set(s.formed().map((f) => f.batch_id));
          for (const e of s.events) if (e.type === 'batch.started') formed.delete(e.batch_id);
          assert.equal(formed.size, 0, `seed ${seed} prefetch ${prefetch}: idle instance beside formed ${[...formed]} at ${s.clock.now()}`);
        }
      }
      assert.equal(s.answered.size, n, `seed ${seed}`);
      assertOldestFirst(s, `seed ${seed} prefetch ${prefetch} slowness ${slowness}`);
    }
  }
});

test('a fast hand-off changes no batch: the same traffic forms the same batches, in the same order, with and without it', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const run = (prefetch: boolean) => {
      const r = new Rng(seed);
      const maxBatch = r.int(1, 8);
      const preferred = maxBatch > 2 && r.next() < 0.5 ? [r.int(2, maxBatch)] : [];
      const s = setup(config(maxBatch, { preferred_batch_size: preferred, max_queue_delay_microseconds: r.next() < 0.5 ? 0 : r.int(100, 3000) }), [1, 1.5], prefetch);
      void s.sched.start();
      let t = 0;
      for (let i = 0, n = r.int(30, 150); i < n; i++) {
        t += Math.round(r.expGapUs(1e6 / r.int(100, 1500)));
        s.clock.setTimer(t, () => s.send(`q${i}`, r.int(1, Math.min(maxBatch, 3))));
      }
      s.clock.runUntilIdle();
      return s.formed().map((f) => f.request_ids.join(','));
    };
    assert.deepEqual(run(true), run(false), `seed ${seed}`);
  }
});

test('a queued payload that grows while held early is taken back and handed again as it grew', () => {
  // preferred [2, 4], delay 5000: c, d reach 2 while both instances run: Triton's payload at 2 may still
  // grow into 4, and it is what the next free instance takes, so it is handed early as it stands; e, f make
  // it a 4: taken back and handed again
  const s = setup(config(8, { preferred_batch_size: [2, 4], max_queue_delay_microseconds: 5000 }), [1, 1], true);
  void s.sched.start();
  s.send('a', 4);
  s.send('b', 4);
  s.clock.advanceTo(100);
  s.send('c');
  s.send('d');
  s.clock.advance(0);
  assert.equal(s.formed().length, 2, 'c,d wait as a payload, not formed');
  assert.deepEqual(s.exec.handed.slice(2), ['m_0_0:c,d']);
  s.clock.advanceTo(200);
  s.send('e');
  s.send('f');
  s.clock.advance(0);
  assert.deepEqual(s.exec.reclaimed, ['m_0_0:c,d']);
  assert.deepEqual(s.exec.handed.slice(3), ['m_0_0:c,d,e,f'], 'grown to 4 while busy, then held again');
  s.clock.runUntilIdle();
  assert.deepEqual(s.started('c').ids, ['c', 'd', 'e', 'f']);
  assertOldestFirst(s, 'grow');
});
