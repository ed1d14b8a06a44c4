import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, Snapshot } from '@inferscope/core';
import { startFakeServer, next, control } from './fake-server.ts';

test('a control change is acknowledged and announced to every client with who made it', async () => {
  const h = await startFakeServer();
  try {
    const a = await h.connect();
    const b = await h.connect();
    const seenByB = new Promise<Frame>((resolve) => {
      b.on('frame', (f: Frame) => {
        if (f.events.some((e) => e.type === 'config.changed')) resolve(f);
      });
    });
    const ack = await control(a, { action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 2000 });
    assert.equal(ack.ok, true);
    assert.deepEqual(ack.changes, [{ path: 'dynamic_batching.max_queue_delay_microseconds', old: 1000, new: 2000 }]);
    assert.equal(h.manager.delay, 2000);
    const f = await seenByB;
    const ev = f.events.find((e) => e.type === 'config.changed');
    assert.ok(ev && ev.type === 'config.changed');
    assert.equal(ev.by, `dashboard:${a.id}`);
  } finally {
    await h.close();
  }
});

test('bad control messages get an error and change nothing', async () => {
  const h = await startFakeServer();
  try {
    const c = await h.connect();
    const bad: [unknown, RegExp][] = [
      ['hello', /must be an object/],
      [{ action: 'explode' }, /'action' must be one of/],
      [{ action: 'setDynamicBatching', model: 'm' }, /at least one of/],
      [{ action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: -1 }, /between 0 and/],
      [{ action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: '5' }, /must be an integer/],
      [{ action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 5, colour: 'red' }, /unknown field 'colour'/],
      [{ action: 'setDynamicBatching', model: '../etc', max_queue_delay_microseconds: 5 }, /not a valid model name/],
      [{ action: 'setDynamicBatching', model: 'm', preferred_batch_size: [4, 0] }, /preferred_batch_size\[1\]/],
      [{ action: 'setDynamicBatching', model: 'm', default_queue_policy: { timeout_action: 'DROP' } }, /REJECT or DELAY/],
      [{ action: 'setInstanceCount', model: 'm', count: 0 }, /'count' must be between 1 and 64/],
      [{ action: 'startReplay', trace: '../../secret' }, /file name in the recordings folder/],
      [{ action: 'startLoad', model: 'm', scenario: 'poisson', rate: 1e9 }, /'rate'/],
      [{ action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 5, pad: 'x'.repeat(70_000) }, /more than the limit/],
    ];
    for (const [msg, re] of bad) {
      const ack = await control<{ ok: boolean; error: string; code?: string }>(c, msg);
      assert.equal(ack.ok, false, JSON.stringify(msg).slice(0, 80));
      assert.match(ack.error, re);
      assert.equal(ack.code, 'INVALID_ARG', 'a malformed control message is INVALID_ARG');
    }
    assert.deepEqual(h.manager.calls, [], 'no handler ran');
    assert.equal(h.manager.delay, 1000);
    // a refusal by the manager itself is passed on with its message and Triton's code
    const ack = await control<{ ok: boolean; error: string }>(c, { action: 'setDynamicBatching', model: 'nope', max_queue_delay_microseconds: 1 });
    assert.deepEqual(ack, { ok: false, error: "Request for unknown model: 'nope' is not found", code: 'NOT_FOUND' });
    const noLoad = await control<{ ok: boolean; error: string }>(c, { action: 'stopLoad' });
    assert.equal(noLoad.ok, false);
  } finally {
    await h.close();
  }
});

test('with a token, viewers can watch but not control; the token in auth or in the message grants control', async () => {
  const h = await startFakeServer({ token: 's3cret' });
  try {
    const viewer = await h.connect();
    const snap = next<Snapshot>(viewer, 'snapshot');
    viewer.emit('resync');
    const vs = await snap;
    assert.equal(vs.server.token_required, true);
    assert.equal(vs.server.can_control, false);
    const refused = await control<{ ok: boolean; error: string }>(viewer, { action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 7 });
    assert.equal(refused.ok, false);
    assert.match(refused.error, /token/);
    assert.ok(!refused.error.includes('s3cret'));
    const wrong = await control<{ ok: boolean }>(viewer, { action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 7, token: 'guess' });
    assert.equal(wrong.ok, false);
    assert.equal(h.manager.delay, 1000);

    const withMsgToken = await control<{ ok: boolean }>(viewer, { action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 7, token: 's3cret' });
    assert.equal(withMsgToken.ok, true);
    assert.equal(h.manager.delay, 7);

    const controller = await h.connect({ token: 's3cret' });
    const cs = next<Snapshot>(controller, 'snapshot');
    controller.emit('resync');
    assert.equal((await cs).server.can_control, true);
    const ok = await control<{ ok: boolean }>(controller, { action: 'setDynamicBatching', model: 'm', max_queue_delay_microseconds: 9 });
    assert.equal(ok.ok, true);
    assert.equal(h.manager.delay, 9);
  } finally {
    await h.close();
  }
});

test('saveConfig and instance counts reach the manager', async () => {
  const h = await startFakeServer();
  try {
    const c = await h.connect();
    const save = await control<{ ok: boolean; path: string; dryRun: boolean }>(c, { action: 'saveConfig', model: 'm', dryRun: true });
    assert.equal(save.ok, true);
    assert.equal(save.dryRun, true);
    assert.equal(save.path, '/r/m/config.pbtxt');
    const cnt = await control<{ ok: boolean }>(c, { action: 'setInstanceCount', model: 'm', count: 2 });
    assert.equal(cnt.ok, true);
    assert.deepEqual(h.manager.calls, ['save m true', 'count m 2']);
  } finally {
    await h.close();
  }
});

test('recording control messages are validated', async () => {
  const h = await startFakeServer();
  try {
    const c = await h.connect();
    for (const [msg, re] of [
      [{ action: 'startRecording', models: [] }, /non-empty list/],
      [{ action: 'startRecording', models: ['../x'] }, /not a valid model name/],
      [{ action: 'startRecording', extra: 1 }, /unknown field 'extra'/],
      [{ action: 'stopRecording', id: 5 }, /'id' must be a recording id/],
      [{ action: 'startRecording' }, /cannot record/],
    ] as [unknown, RegExp][]) {
      const ack = await control<{ ok: boolean; error: string }>(c, msg);
      assert.equal(ack.ok, false);
      assert.match(ack.error, re);
    }
  } finally {
    await h.close();
  }
});
