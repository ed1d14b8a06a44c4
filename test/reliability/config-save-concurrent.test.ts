/**
 * Config saves through the real server (issue 56, data loss): two dashboards (two Socket.IO clients)
 * pressing Save at once after a live change get one write between them, and the .bak is the original
 * file; an outside edit made between the preview and the save is kept; in poll mode a save over an
 * outside edit keeps it and the next poll loads it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, tempRepository } from '../support/server.ts';
import { accepted as ok, connectLive, control } from './live-client.ts';

const HAND = '\n# added by hand while the server ran\nparameters { key: "hand_param" value: { string_value: "kept" } }\n';

test('two saves at once after a live change: exactly one write, the .bak is the original bytes', { timeout: 60_000 }, async () => {
  const repo = await tempRepository(['cnn_classifier']);
  const server = await startTestServer({ modelRepositories: [repo.dir] });
  const file = join(repo.dir, 'cnn_classifier/config.pbtxt');
  const a = await connectLive(server.url);
  const b = await connectLive(server.url);
  try {
    const original = await readFile(file);
    const set = await control(a.socket, { action: 'setDynamicBatching', model: 'cnn_classifier', max_queue_delay_microseconds: 4321 });
    assert.equal(set.ok, true, JSON.stringify(set));
    const acks = await Promise.all([a, b, a].map((c) => ok(c.socket, { action: 'saveConfig', model: 'cnn_classifier' })));
    assert.equal(acks.filter((k) => k.written === true).length, 1, JSON.stringify(acks));
    for (const k of acks.filter((x) => x.written !== true)) assert.deepEqual([k.backup, k.diff], [null, '']);
    const wrote = acks.find((k) => k.written === true)!;
    assert.equal(wrote.backup, `${file}.bak`, 'the answer says where the .bak went');
    assert.deepEqual(await readFile(`${file}.bak`), original);
    assert.match(await readFile(file, 'utf8'), /max_queue_delay_microseconds: 4321/);

    // another live change and save: the file it replaces is the server's own output, so the .bak stays
    await control(b.socket, { action: 'setDynamicBatching', model: 'cnn_classifier', max_queue_delay_microseconds: 555 });
    const again = await ok(b.socket, { action: 'saveConfig', model: 'cnn_classifier' });
    assert.deepEqual([again.written, again.backup, again.backupKept], [true, `${file}.bak`, true]);
    assert.deepEqual(await readFile(`${file}.bak`), original);
    assert.deepEqual((await readdir(join(repo.dir, 'cnn_classifier'))).filter((n) => n.includes('.tmp-')), []);
  } finally {
    a.socket.close();
    b.socket.close();
    await server.close();
    await repo.remove();
  }
});

test('an outside edit between the preview and the save is kept, and the save answers with the diff it made', { timeout: 60_000 }, async () => {
  const repo = await tempRepository(['cnn_classifier']);
  const server = await startTestServer({ modelRepositories: [repo.dir] });
  const file = join(repo.dir, 'cnn_classifier/config.pbtxt');
  const c = await connectLive(server.url);
  try {
    await control(c.socket, { action: 'setDynamicBatching', model: 'cnn_classifier', max_queue_delay_microseconds: 4321 });
    const preview = await control(c.socket, { action: 'saveConfig', model: 'cnn_classifier', dryRun: true });
    assert.equal(preview.ok, true, JSON.stringify(preview));
    await appendFile(file, HAND);
    const saved = await ok(c.socket, { action: 'saveConfig', model: 'cnn_classifier' });
    assert.equal(saved.written, true, JSON.stringify(saved));
    const after = await readFile(file, 'utf8');
    assert.ok(after.includes(HAND.trim()), 'the outside edit survived');
    assert.match(after, /max_queue_delay_microseconds: 4321/);
    assert.ok(String(saved.diff).split('\n').every((l) => !/^[-+][^-+]/.test(l) || l.includes('max_queue_delay')), String(saved.diff));
    assert.match(String((saved.notes as string[]).join('\n')), /edited on disk since the model loaded/);
  } finally {
    c.socket.close();
    await server.close();
    await repo.remove();
  }
});

test('poll mode: a save over an outside edit keeps it, and the next poll loads it with the saved live value', { timeout: 60_000 }, async () => {
  const repo = await tempRepository(['cnn_classifier']);
  const server = await startTestServer({ modelRepositories: [repo.dir], modelControlMode: 'poll', repositoryPollSecs: 0 });
  const file = join(repo.dir, 'cnn_classifier/config.pbtxt');
  const manager = server.built.manager;
  try {
    await manager.updateDynamicBatching('cnn_classifier', undefined, { max_queue_delay_microseconds: 4321 }, 'test');
    await appendFile(file, HAND);
    const saved = await manager.saveConfig('cnn_classifier');
    assert.equal(saved.written, true);
    assert.ok((await readFile(file, 'utf8')).includes(HAND.trim()));
    const diff = await manager.poll();
    assert.deepEqual(diff.modified, ['cnn_classifier'], 'the hand edit is not live yet: the poll loads it');
    const live = manager.require('cnn_classifier').config;
    assert.equal(live.dynamic_batching?.max_queue_delay_microseconds, 4321);
    assert.equal(live.parameters?.hand_param?.string_value, 'kept');
    assert.deepEqual((await manager.poll()).unchanged, ['cnn_classifier']);
  } finally {
    await server.close();
    await repo.remove();
  }
});
