/**
 * Config write-back leaves nothing torn and nothing behind: the .bak is replaced atomically (a new file
 * renamed into place, never the old one overwritten in place, which a kill mid-copy would tear), and temp
 * files left by a save that was killed before its rename are removed by the next save or (re)load, but
 * only our own temp names, and never those of a writer that is still running.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, link, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '@inferscope/core';
import { parseModelConfig } from '@inferscope/core/config';
import { ModelManager } from '../../apps/server/src/models/model-manager.ts';
import { saveDelay } from './config-engine.ts';
import { fakeRuntime, makeRepository, cfg } from '../repository/fakes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** the pid of a process that has exited (its temp files are leftovers) */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

async function withModel(fn: (repo: string, modelDir: string) => Promise<void>): Promise<void> {
  const repo = await mkdtemp(join(tmpdir(), 'is-temps-'));
  const modelDir = join(repo, 'cnn_classifier');
  await cp(join(ROOT, 'model_repository/cnn_classifier'), modelDir, { recursive: true });
  try {
    await fn(repo, modelDir);
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}


test('the previous .bak is replaced by a new file, never rewritten in place', async () => {
  await withModel(async (repo, modelDir) => {
    const bak = join(modelDir, 'config.pbtxt.bak');
    await writeFile(bak, 'old backup\n');
    // A second name for the old .bak's inode: an in-place copy would change what it reads.
    await link(bak, join(repo, 'old-bak-inode'));
    const before = await readFile(join(modelDir, 'config.pbtxt'), 'utf8');
    await saveDelay(repo, 4321);
    assert.equal(await readFile(bak, 'utf8'), before, '.bak holds the previous config');
    assert.equal(await readFile(join(repo, 'old-bak-inode'), 'utf8'), 'old backup\n', 'the old .bak file was not overwritten in place');
    assert.deepEqual((await readdir(modelDir)).filter((n) => n.includes('.tmp-')), []);
  });
});

test('a save removes temp files of ours left by killed writers, and nothing else', async () => {
  await withModel(async (repo, modelDir) => {
    const dead = deadPid();
    const stale = [`.config.pbtxt.tmp-${dead}-1700000000000-3`, `.config.pbtxt.bak.tmp-${dead}-1700000000000-4`, `.config.pbtxt.tmp-${dead}-1700000000000`];
    // a writer that is still running (our parent process), names that are not ours, and a user's file
    const kept = [`.config.pbtxt.tmp-${process.ppid}-1700000000000-1`, '.config.pbtxt.tmp-mine', `.other.txt.tmp-${dead}-1-2`, 'config.pbtxt.tmp-1-2-3', 'notes.txt'];
    for (const n of [...stale, ...kept]) await writeFile(join(modelDir, n), 'x');
    await saveDelay(repo, 777);
    const left = await readdir(modelDir);
    for (const n of stale) assert.ok(!left.includes(n), `${n} should have been removed`);
    for (const n of kept) assert.ok(left.includes(n), `${n} must be left alone`);
    assert.equal(parseModelConfig(await readFile(join(modelDir, 'config.pbtxt'), 'utf8')).dynamic_batching?.max_queue_delay_microseconds, 777);
  });
});

test('loading a model removes temp files a killed save left in its folder', async () => {
  const repo = await makeRepository({ 'm/config.pbtxt': cfg({ name: 'm', platform: 'onnxruntime_onnx', max_batch_size: 4 }), 'm/1/model.onnx': 'x' });
  const stale = `.config.pbtxt.tmp-${deadPid()}-1700000000000-9`;
  await writeFile(join(repo, 'm', stale), 'torn');
  const m = new ModelManager({ repositories: [repo], controlMode: 'none', gpuCount: 0, bus: new EventBus(), runtime: fakeRuntime() });
  try {
    await m.start();
    assert.equal(m.require('m').state, 'READY');
    assert.ok(!(await readdir(join(repo, 'm'))).includes(stale));
  } finally {
    await m.close();
    await rm(repo, { recursive: true, force: true });
  }
});
