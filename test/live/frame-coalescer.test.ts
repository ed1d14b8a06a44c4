import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, SchedulerEvent } from '@inferscope/core';
import { FrameCoalescer } from '../../apps/server/src/live/frame-coalescer.ts';

const queued = (i: number): SchedulerEvent => ({ type: 'request.queued', t: i, model: 'm', version: '1', request_id: `r${i}`, priority: 1, batch_size: 1, queue_depth: 1 });
const formed = (i: number): SchedulerEvent => ({ type: 'batch.formed', t: i, model: 'm', version: '1', batch_id: `b${i}`, request_ids: [], size: 1, trigger: 'delay', oldest_wait_us: 0 });
const state = (i: number): SchedulerEvent => ({ type: 'model.state', t: i, model: 'm', version: '1', state: 'READY' });

test('a stalled client gets nothing while stalled, then one frame with held control events and the dropped count', () => {
  const c = new FrameCoalescer({ maxBacklog: 2 });
  c.addClient('fast');
  c.addClient('slow');
  const out: Record<string, Frame[]> = { fast: [], slow: [] };
  const send = (id: string, f: Frame) => out[id].push(f);
  let slowBacklog = 10;
  const backlog = (id: string) => (id === 'slow' ? slowBacklog : 0);
  for (let tick = 0; tick < 5; tick++) {
    for (let i = 0; i < 100; i++) c.push(queued(tick * 100 + i));
    c.push(state(tick * 100 + 50));
    c.flush(tick, backlog, send);
  }
  assert.equal(out.fast.length, 5);
  assert.equal(out.slow.length, 0);
  slowBacklog = 0;
  c.push(queued(1000));
  c.flush(5, backlog, send);
  assert.equal(out.slow.length, 1);
  const f = out.slow[0];
  assert.equal(f.seq, 1);
  assert.equal(f.dropped, 500);
  assert.deepEqual(f.events.map((e) => e.type), ['model.state', 'model.state', 'model.state', 'model.state', 'model.state', 'request.queued']);
  assert.equal(out.fast.reduce((n, f) => n + f.events.length, 0), 506, "the fast client got everything");
});

test('within a frame batch events are kept before request events, in time order', () => {
  const c = new FrameCoalescer({ maxEventsPerFrame: 10 });
  c.addClient('a');
  for (let i = 0; i < 30; i++) c.push(i % 6 === 0 ? formed(i) : queued(i));
  const frames: Frame[] = [];
  c.flush(0, () => 0, (_id, f) => frames.push(f));
  assert.equal(frames.length, 1);
  assert.equal(frames[0].events.length, 10);
  assert.equal(frames[0].dropped, 20);
  assert.equal(frames[0].events.filter((e) => e.type === 'batch.formed').length, 5);
  const ts = frames[0].events.map((e) => e.t);
  assert.deepEqual(ts, [...ts].sort((a, b) => a - b));
});

test('the tick buffer is bounded: events beyond it are counted, not stored', () => {
  const c = new FrameCoalescer({ maxBufferedEvents: 100, maxEventsPerFrame: 1000 });
  c.addClient('a');
  for (let i = 0; i < 1000; i++) c.push(queued(i));
  assert.equal(c.bufferedEvents, 100);
  const frames: Frame[] = [];
  c.flush(0, () => 0, (_id, f) => frames.push(f));
  assert.equal(frames[0].events.length, 100);
  assert.equal(frames[0].dropped, 900);
});

test('an idle tick sends nothing', () => {
  const c = new FrameCoalescer();
  c.addClient('a');
  let sent = 0;
  c.flush(0, () => 0, () => sent++);
  assert.equal(sent, 0);
});

test('with no client connected nothing is buffered; a client that connects gets only what happens after', () => {
  const c = new FrameCoalescer();
  for (let i = 0; i < 50; i++) c.push(queued(i));
  c.push(state(50));
  assert.equal(c.bufferedEvents, 0, 'events nobody can receive are not kept');
  c.addClient('late');
  c.push(queued(60));
  const frames: Frame[] = [];
  c.flush(0, () => 0, (_id, f) => frames.push(f));
  assert.equal(frames.length, 1);
  assert.deepEqual(frames[0].events.map((e) => e.t), [60]);
  assert.equal(frames[0].dropped, 0);
  c.removeClient('late');
  c.push(queued(70));
  assert.equal(c.bufferedEvents, 0, 'the last client leaving stops the buffering again');
});
