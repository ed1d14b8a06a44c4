/**
 * Save writes the live config of the version the user tuned: tuning mlp_classifier v1 and saving v1
 * changes config.pbtxt, where "save" used to take the latest version (v2) and answer "already matches".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { startTestServer, tempRepository } from '../support/server.ts';

test('saveConfig writes the tuned version, not the latest', { timeout: 60_000 }, async () => {
  const repo = await tempRepository(['mlp_classifier']);
  const server = await startTestServer({ modelRepositories: [repo.dir] });
  const socket = io(server.url, { transports: ['websocket'] });
  const control = (msg: object) => socket.timeout(20_000).emitWithAck('control', msg) as Promise<Record<string, unknown>>;
  try {
    await new Promise<void>((r) => socket.once('snapshot', () => r()));
    const set = await control({ action: 'setDynamicBatching', model: 'mlp_classifier', version: '1', max_queue_delay_microseconds: 777 });
    assert.equal(set.ok, true, JSON.stringify(set));
    const latest = await control({ action: 'saveConfig', model: 'mlp_classifier', dryRun: true });
    assert.equal(String(latest.diff).includes('777'), false, 'v2 (latest) was not changed');
    const v1 = await control({ action: 'saveConfig', model: 'mlp_classifier', version: '1', dryRun: true });
    assert.match(String(v1.diff), /\+.*max_queue_delay_microseconds: 777/);
    // hunks only, the removed line before the added one
    const lines = String(v1.diff).split('\n');
    assert.ok(lines.some((l) => /^@@ -\d+,\d+ \+\d+,\d+ @@$/.test(l)), String(v1.diff));
    assert.ok(lines.length < 12, `only the hunk, not the whole file: ${v1.diff}`);
    const del = lines.findIndex((l) => l.startsWith('-') && l.includes('max_queue_delay_microseconds'));
    const add = lines.findIndex((l) => l.startsWith('+') && l.includes('777'));
    assert.ok(del > 1 && del < add, String(v1.diff));
    // one file governs both versions: the answer says so, and what v2 would run after a restart
    const versions = v1.versions as { saved: string; governs: string[]; differences: Array<{ version: string; path: string; live: unknown; written: unknown }> };
    assert.deepEqual(versions.governs, ['1', '2']);
    assert.equal(versions.saved, '1');
    assert.deepEqual(versions.differences.map((d) => [d.version, d.path, d.written]), [['2', 'dynamic_batching.max_queue_delay_microseconds', 777]]);
    const written = await control({ action: 'saveConfig', model: 'mlp_classifier', version: '1' });
    assert.equal(written.ok, true, JSON.stringify(written));
    assert.match(await readFile(join(repo.dir, 'mlp_classifier/config.pbtxt'), 'utf8'), /max_queue_delay_microseconds: 777/);
    const bad = await control({ action: 'saveConfig', model: 'mlp_classifier', version: '9' });
    assert.equal(bad.ok, false);
  } finally {
    socket.close();
    await server.close();
    await repo.remove();
  }
});
