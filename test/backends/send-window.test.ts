// The per-request send window (backends/stub/send-window.ts): acknowledgements as responses leave, the
// stall clock running only while the window is full and restarting on progress, nothing after close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AckBatch, SEND_WINDOW_BYTES, SEND_WINDOW_RESPONSES, SendWindow } from '../../apps/server/src/backends/stub/send-window.ts';

test('a full window starts the stall clock; a response leaving acknowledges it and stops the clock', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const acks: number[] = [];
  let stalls = 0;
  const w = new SendWindow({ stallMs: 1000, ack: (n) => acks.push(n), stalled: () => stalls++ });
  const MiB = 1024 * 1024;
  const lefts = Array.from({ length: SEND_WINDOW_BYTES / MiB }, () => w.took(MiB));
  assert.deepEqual(w.held, { bytes: SEND_WINDOW_BYTES, responses: lefts.length });
  t.mock.timers.tick(999);
  lefts[0]();
  lefts[0](); // a second call does nothing
  assert.deepEqual(acks, [1]);
  t.mock.timers.tick(5000);
  assert.equal(stalls, 0, 'not full: no stall');
  w.took(MiB); // full again: the clock starts anew
  t.mock.timers.tick(999);
  assert.equal(stalls, 0);
  t.mock.timers.tick(1);
  assert.equal(stalls, 1);
  w.close();
  lefts[1]();
  assert.deepEqual(acks, [1], 'no acknowledgement after close');
});

test('many small responses fill the window by count', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let stalls = 0;
  const w = new SendWindow({ stallMs: 10, ack: () => undefined, stalled: () => stalls++ });
  for (let i = 0; i < SEND_WINDOW_RESPONSES - 1; i++) w.took(0);
  t.mock.timers.tick(100);
  assert.equal(stalls, 0);
  w.took(0);
  t.mock.timers.tick(10);
  assert.equal(stalls, 1);
});

test('acknowledgements of one turn go as one message per request', async () => {
  const told: unknown[] = [];
  const acks = new AckBatch((m) => told.push(m));
  acks.add(1, 0, 1);
  acks.add(1, 0, 1);
  acks.add(2, 3, 1);
  assert.deepEqual(told, []);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(told, [{ type: 'drained', run: 1, index: 0, n: 2 }, { type: 'drained', run: 2, index: 3, n: 1 }]);
});
