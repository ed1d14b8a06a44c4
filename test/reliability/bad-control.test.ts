/**
 * Bad control messages over Socket.IO and bad scenario/trace files: each is refused with a reason, and
 * nothing changes (model configs and states, config files on disk, load runs) — compared before/after.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_CONTROL_BYTES } from '@inferscope/core';
import { startServer, tempRepository, type Running } from './harness.ts';
import { connectLive, control } from './live-client.ts';

let server: Running;
let repo: Awaited<ReturnType<typeof tempRepository>>;
const MODELS = ['mlp_classifier', 'text_encoder'];

before(async () => {
  repo = await tempRepository(MODELS);
  server = await startServer({ repositories: [repo.dir], controlMode: 'explicit', loadModels: ['*'] });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

async function fingerprint(): Promise<string> {
  const models = server.manager.list().map((m) => ({ name: m.name, version: m.version, state: m.state, config: m.config, instances: m.instances.length }));
  const files = await Promise.all(MODELS.map((m) => readFile(join(repo.dir, m, 'config.pbtxt'), 'utf8')));
  return JSON.stringify({ models, files, runs: server.load.progress().length });
}

const M = 'mlp_classifier';
const BAD_MESSAGES: [string, unknown][] = [
  ['null', null], ['number', 42], ['string', 'setInstanceCount'], ['array', [{ action: 'loadModel', model: M }]], ['boolean', true],
  ['no action', { model: M }], ['unknown action', { action: 'explode', model: M }], ['numeric action', { action: 5 }],
  ['patch without fields', { action: 'setDynamicBatching', model: M }],
  ['patch unknown field', { action: 'setDynamicBatching', model: M, max_queue_delay: 5 }],
  ['negative delay', { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: -1 }],
  ['huge delay', { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 1e12 }],
  ['fractional delay', { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 1.5 }],
  ['string delay', { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: '100' }],
  ['preferred not a list', { action: 'setDynamicBatching', model: M, preferred_batch_size: '8' }],
  ['preferred zero', { action: 'setDynamicBatching', model: M, preferred_batch_size: [0] }],
  ['preferred negative', { action: 'setDynamicBatching', model: M, preferred_batch_size: [-4] }],
  ['preferred above max_batch_size', { action: 'setDynamicBatching', model: M, preferred_batch_size: [128] }],
  ['preferred list too long', { action: 'setDynamicBatching', model: M, preferred_batch_size: Array.from({ length: 65 }, (_, i) => i + 1) }],
  ['max_batch_size above the model', { action: 'setDynamicBatching', model: M, max_batch_size: 1000 }],
  ['max_batch_size below preferred', { action: 'setDynamicBatching', model: M, max_batch_size: 4 }],
  ['bad timeout_action', { action: 'setDynamicBatching', model: M, default_queue_policy: { timeout_action: 'DROP' } }],
  ['negative max_queue_size', { action: 'setDynamicBatching', model: M, default_queue_policy: { max_queue_size: -1 } }],
  ['queue policy unknown field', { action: 'setDynamicBatching', model: M, default_queue_policy: { size: 3 } }],
  ['priority policy key 0', { action: 'setDynamicBatching', model: M, priority_queue_policy: { '0': { max_queue_size: 1 } } }],
  ['preserve_ordering string', { action: 'setDynamicBatching', model: M, preserve_ordering: 'yes' }],
  ['traversal model', { action: 'setDynamicBatching', model: '../mlp_classifier', max_queue_delay_microseconds: 10 }],
  ['empty model', { action: 'setDynamicBatching', model: '', max_queue_delay_microseconds: 10 }],
  ['slash model', { action: 'setDynamicBatching', model: 'a/b', max_queue_delay_microseconds: 10 }],
  ['unknown model', { action: 'setDynamicBatching', model: 'nope', max_queue_delay_microseconds: 10 }],
  ['version 0', { action: 'setDynamicBatching', model: M, version: 0, max_queue_delay_microseconds: 10 }],
  ['version 01', { action: 'setDynamicBatching', model: M, version: '01', max_queue_delay_microseconds: 10 }],
  ['unknown version', { action: 'setDynamicBatching', model: M, version: '99', max_queue_delay_microseconds: 10 }],
  ['count 0', { action: 'setInstanceCount', model: M, count: 0 }],
  ['count 65', { action: 'setInstanceCount', model: M, count: 65 }],
  ['count fraction', { action: 'setInstanceCount', model: M, count: 1.5 }],
  ['count string', { action: 'setInstanceCount', model: M, count: '2' }],
  ['empty group', { action: 'setInstanceCount', model: M, group: '', count: 2 }],
  ['unknown group', { action: 'setInstanceCount', model: M, group: 'nope', count: 2 }],
  ['count unknown model', { action: 'setInstanceCount', model: 'nope', count: 2 }],
  ['load traversal', { action: 'loadModel', model: '../model_repository' }],
  ['load dotdot', { action: 'loadModel', model: '..' }],
  ['load missing', { action: 'loadModel', model: 'not_in_repository' }],
  ['load extra field', { action: 'loadModel', model: M, path: '/etc' }],
  ['unload unknown', { action: 'unloadModel', model: 'nope' }],
  ['unload backslash', { action: 'unloadModel', model: '..\\x' }],
  ['save traversal', { action: 'saveConfig', model: '../mlp_classifier' }],
  ['save dryRun string', { action: 'saveConfig', model: M, dryRun: 'yes' }],
  ['save unknown model', { action: 'saveConfig', model: 'nope' }],
  ['load scenario number', { action: 'startLoad', model: M, scenario: 5 }],
  ['load scenario empty', { action: 'startLoad', model: M, scenario: '' }],
  ['load unknown preset', { action: 'startLoad', model: M, scenario: 'no_such_preset' }],
  ['load invalid scenario {}', { action: 'startLoad', model: M, scenario: {} }],
  ['load scenario no phases', { action: 'startLoad', model: M, scenario: { name: 'x', phases: [] } }],
  ['load scenario bad phase', { action: 'startLoad', model: M, scenario: { name: 'x', phases: [{ type: 'warp', duration_s: 1 }] } }],
  ['load scenario negative rate', { action: 'startLoad', model: M, scenario: { name: 'x', phases: [{ type: 'constant', duration_s: 1, rate: -5 }] } }],
  ['load rate -1', { action: 'startLoad', model: M, scenario: 'steady', rate: -1 }],
  ['load rate 1e9', { action: 'startLoad', model: M, scenario: 'steady', rate: 1e9 }],
  ['load duration 0', { action: 'startLoad', model: M, scenario: 'steady', duration: 0 }],
  ['load concurrency 0', { action: 'startLoad', model: M, scenario: 'steady', concurrency: 0 }],
  ['load mode grpc', { action: 'startLoad', model: M, scenario: 'steady', mode: 'grpc' }],
  ['load seed -1', { action: 'startLoad', model: M, scenario: 'steady', seed: -1 }],
  ['load model traversal', { action: 'startLoad', model: '../x', scenario: 'steady' }],
  ['stop unknown run', { action: 'stopLoad', id: 'load-999' }],
  ['replay traversal', { action: 'startReplay', trace: '../../etc/passwd' }],
  ['replay absolute', { action: 'startReplay', trace: '/etc/passwd' }],
  ['replay missing', { action: 'startReplay', trace: 'missing.ndjson' }],
  ['oversized message', { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 10, pad: 'x'.repeat(MAX_CONTROL_BYTES + 10) }],
];

/** Bad trace files written into the recordings folder, then replayed by name. */
const BAD_TRACES: [string, string][] = [
  ['empty', ''],
  ['garbage', '\u0000\u0001not json at all\n'],
  ['no header', '{"t_us":0,"model":"mlp_classifier"}\n'],
  ['wrong format', '{"format":"other","version":1}\n{"t_us":0,"model":"mlp_classifier"}\n'],
  ['version 2', '{"format":"inferscope-trace","version":2}\n{"t_us":0,"model":"mlp_classifier"}\n'],
  ['header only', '{"format":"inferscope-trace","version":1}\n'],
  ['unsorted', '{"format":"inferscope-trace","version":1}\n{"t_us":500,"model":"mlp_classifier"}\n{"t_us":100,"model":"mlp_classifier"}\n'],
  ['negative time', '{"format":"inferscope-trace","version":1}\n{"t_us":-5,"model":"mlp_classifier"}\n'],
  ['unknown field', '{"format":"inferscope-trace","version":1}\n{"t_us":0,"model":"mlp_classifier","payload":"x"}\n'],
  ['batch 0', '{"format":"inferscope-trace","version":1}\n{"t_us":0,"model":"mlp_classifier","batch_size":0}\n'],
  ['truncated line', '{"format":"inferscope-trace","version":1}\n{"t_us":0,"model":"mlp_cl'],
  ['array line', '{"format":"inferscope-trace","version":1}\n[1,2,3]\n'],
];

test('bad control messages and bad trace files are refused with a reason; nothing changes', { timeout: 180_000 }, async () => {
  const { socket } = await connectLive(server.url);
  try {
    const before = await fingerprint();
    const refused: string[] = [];
    for (const [label, msg] of BAD_MESSAGES) {
      const ack = await control(socket, msg);
      assert.equal(ack.ok, false, `${label} was accepted: ${JSON.stringify(ack).slice(0, 200)}`);
      assert.ok(!ack.ok && typeof ack.error === 'string' && ack.error.length > 5, `${label}: no reason given`);
      refused.push(label);
    }
    for (const [i, [label, text]] of BAD_TRACES.entries()) {
      const name = `bad-${i}.ndjson`;
      await writeFile(join(server.recordingsDir, name), text);
      const ack = await control(socket, { action: 'startReplay', trace: name });
      assert.equal(ack.ok, false, `trace '${label}' was accepted`);
      assert.ok(!ack.ok && ack.error.length > 5);
      refused.push(`trace ${label}`);
    }
    // A control message without an acknowledgement callback, and one with a throwing getter-free cyclic-ish payload.
    socket.emit('control', { action: 'explode' });
    socket.emit('control');
    assert.equal(await fingerprint(), before, 'a refused message changed something');
    assert.equal(server.load.progress().length, 0, 'no load run was started');

    // The channel still works: a valid change is applied (and then undone).
    const ok = await control(socket, { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 3000 });
    assert.equal(ok.ok, true, JSON.stringify(ok));
    assert.equal((server.manager.get(M)!.config.dynamic_batching as { max_queue_delay_microseconds?: number }).max_queue_delay_microseconds, 3000);
    console.log(`bad-control: tried ${refused.length} (${BAD_MESSAGES.length} messages, ${BAD_TRACES.length} trace files), refused ${refused.length}, changed 0`);
  } finally {
    socket.disconnect();
  }
});

test('a socket message above the transport limit drops only that client; others and the server carry on', { timeout: 120_000 }, async () => {
  const a = await connectLive(server.url);
  const b = await connectLive(server.url);
  try {
    const before = await fingerprint();
    const dropped = new Promise<string>((resolve) => a.socket.once('disconnect', (reason) => resolve(reason)));
    a.socket.emit('control', { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 10, pad: 'x'.repeat(2_000_000) });
    assert.match(await dropped, /transport close|io server disconnect/);
    const ack = await control(b.socket, { action: 'stopLoad' });
    assert.equal(ack.ok, true, 'the other client is still served');
    assert.equal(await fingerprint(), before);
  } finally {
    a.socket.disconnect();
    b.socket.disconnect();
  }
});

test('load aimed at a model the server does not serve is refused up front', async () => {
  const { socket } = await connectLive(server.url);
  try {
    const ack = await control(socket, { action: 'startLoad', model: 'no_such_model', scenario: 'steady', duration: 1 });
    server.load.stop();
    assert.equal(ack.ok, false, `accepted: ${JSON.stringify(ack)}`);
    await writeFile(join(server.recordingsDir, 'unknown-model.ndjson'), '{"format":"inferscope-trace","version":1}\n{"t_us":0,"model":"no_such_model"}\n');
    const replay = await control(socket, { action: 'startReplay', trace: 'unknown-model.ndjson' });
    server.load.stop();
    assert.equal(replay.ok, false, `accepted: ${JSON.stringify(replay)}`);
  } finally {
    socket.disconnect();
  }
});
