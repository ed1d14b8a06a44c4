// startLoad aims at the version the dashboard picked (its other controls already do), over HTTP
// (/versions/{v}/infer) and in process; without a version the load goes to the latest READY version.
// mlp_classifier serves versions 1 and 2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ControlAck, RequestQueuedEvent } from '@inferscope/core';
import { startRealServer, type RealServer } from '../live/real-server.ts';

let s: RealServer;
before(async () => {
  s = await startRealServer({ models: ['mlp_classifier'] });
});
after(async () => {
  await s?.close();
});

const control = (socket: import('socket.io-client').Socket, msg: unknown) => socket.timeout(15_000).emitWithAck('control', msg) as Promise<ControlAck & Record<string, unknown>>;

async function versionsHit(msg: Record<string, unknown>): Promise<string[]> {
  const c = await s.connect();
  const from = s.events.length;
  const start = await control(c, { action: 'startLoad', model: 'mlp_classifier', scenario: 'steady', rate: 40, duration: 0.5, seed: 1, ...msg });
  assert.equal(start.ok, true, JSON.stringify(start));
  const { summary } = await s.load.wait(String(start.id));
  assert.equal(summary.errors, 0);
  const queued = s.events.slice(from).filter((e): e is RequestQueuedEvent => e.type === 'request.queued' && e.model === 'mlp_classifier');
  assert.ok(queued.length >= 5, `only ${queued.length} requests reached the scheduler`);
  return [...new Set(queued.map((e) => e.version))];
}

test('startLoad with a version sends every request to that version (HTTP and in process)', async () => {
  assert.deepEqual(await versionsHit({ version: '1' }), ['1']);
  assert.deepEqual(await versionsHit({ version: '1', mode: 'inprocess' }), ['1']);
  assert.deepEqual(await versionsHit({}), ['2'], 'without a version: the latest');
});

test('startLoad refuses a malformed or unknown version and starts nothing', async () => {
  const c = await s.connect();
  const bad = await control(c, { action: 'startLoad', model: 'mlp_classifier', scenario: 'steady', duration: 1, version: 'one' });
  assert.equal(bad.ok, false);
  assert.match(String(!bad.ok && bad.error), /'version' must be a positive integer/);
  const unknown = await control(c, { action: 'startLoad', model: 'mlp_classifier', scenario: 'steady', duration: 1, version: '7' });
  assert.equal(unknown.ok, false);
  assert.match(String(!unknown.ok && unknown.error), /version 7/);
  assert.equal(s.load.progress().filter((p) => p.state === 'running').length, 0);
});
