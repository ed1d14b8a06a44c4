/**
 * Config write-back against planted files (issue 13, item 5): a link at a predictable temp name made a
 * save overwrite a file outside the repository; config.pbtxt swapped for a link to a 0600 secret made the
 * .bak a world-readable copy of it; a link to /dev/zero read until 3 GB. Now temp names are random and
 * created exclusively without following links, the target must be a regular file inside the repository,
 * the .bak keeps the original's mode, and reads are capped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, chmod, cp, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempNameFor } from '../../apps/server/src/models/config-writeback/atomic-file.ts';
import { saveDelay } from './config-engine.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const MiB = 1024 * 1024;

async function withModel(fn: (repo: string, modelDir: string, outside: string) => Promise<void>): Promise<void> {
  const base = await mkdtemp(join(tmpdir(), 'is-wsafe-'));
  const repo = join(base, 'repo');
  const outside = join(base, 'outside');
  await cp(join(ROOT, 'model_repository/cnn_classifier'), join(repo, 'cnn_classifier'), { recursive: true });
  await cp(join(ROOT, 'model_repository/cnn_classifier'), outside, { recursive: true });
  try {
    await fn(repo, join(repo, 'cnn_classifier'), outside);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}


test('temp names cannot be predicted: links planted at every name the old scheme would use are never written through', async () => {
  await withModel(async (repo, modelDir, outside) => {
    const victim = join(outside, 'victim.txt');
    await writeFile(victim, 'precious\n');
    const now = Date.now();
    // the old name was .config.pbtxt.tmp-<pid>-<ms>-<n>: plant links for the next seconds and counters
    for (let ms = now; ms < now + 3000; ms += 7) for (const n of [1, 2, 3]) await symlink(victim, join(modelDir, `.config.pbtxt.tmp-${process.pid}-${ms}-${n}`)).catch(() => {});
    await saveDelay(repo, 4321);
    assert.equal(await readFile(victim, 'utf8'), 'precious\n', 'the save wrote through a planted link');
    assert.match(await readFile(join(modelDir, 'config.pbtxt'), 'utf8'), /4321/);
    const a = tempNameFor('/x/config.pbtxt');
    const b = tempNameFor('/x/config.pbtxt');
    assert.notEqual(a, b);
    assert.match(a, /\.tmp-\d+-\d+-[0-9a-f]{16}$/);
  });
});

test('config.pbtxt swapped for a link to a 0600 file outside: refused, no .bak copy of it', async () => {
  await withModel(async (repo, modelDir, outside) => {
    const secret = join(outside, 'secret.txt');
    await writeFile(secret, 'TOP-SECRET\n', { mode: 0o600 });
    await assert.rejects(
      saveDelay(repo, 5555, async () => {
        await rm(join(modelDir, 'config.pbtxt'));
        await symlink(secret, join(modelDir, 'config.pbtxt'));
      }),
      /outside the model repository/,
    );
    for (const name of await readdir(modelDir)) {
      if (name === 'config.pbtxt') continue;
      const s = await stat(join(modelDir, name));
      if (s.isFile()) assert.ok(!(await readFile(join(modelDir, name), 'utf8')).includes('TOP-SECRET'), `${name} holds the secret`);
    }
    assert.equal(await readFile(secret, 'utf8'), 'TOP-SECRET\n');
  });
});

test('config.pbtxt swapped for a link to /dev/zero or a FIFO: refused at once, memory flat', { timeout: 30_000 }, async () => {
  await withModel(async (repo, modelDir) => {
    const rss0 = process.memoryUsage().rss;
    // /dev/zero is outside the repository: refused by the realpath check before any read
    await assert.rejects(saveDelay(repo, 6666, async () => {
      await rm(join(modelDir, 'config.pbtxt'));
      await symlink('/dev/zero', join(modelDir, 'config.pbtxt'));
    }), /refusing to save/);
    // a FIFO inside the repository: refused by the regular-file check without blocking
    await rm(join(modelDir, 'config.pbtxt'));
    await cp(join(ROOT, 'model_repository/cnn_classifier/config.pbtxt'), join(modelDir, 'config.pbtxt'));
    const { execFileSync } = await import('node:child_process');
    await assert.rejects(saveDelay(repo, 6667, async () => {
      await rm(join(modelDir, 'config.pbtxt'));
      execFileSync('mkfifo', [join(modelDir, 'config.pbtxt')]);
    }), /FIFO/);
    assert.ok(process.memoryUsage().rss - rss0 < 100 * MiB);
  });
});

test('.bak keeps the original mode; the new config keeps it too', async () => {
  await withModel(async (repo, modelDir) => {
    await chmod(join(modelDir, 'config.pbtxt'), 0o600);
    await saveDelay(repo, 7777);
    assert.equal((await stat(join(modelDir, 'config.pbtxt.bak'))).mode & 0o777, 0o600);
    assert.equal((await stat(join(modelDir, 'config.pbtxt'))).mode & 0o777, 0o600);
    // a hand edit makes the file the user's again: the next .bak is a copy of it, with its mode
    await appendFile(join(modelDir, 'config.pbtxt'), '# edited by hand\n');
    await chmod(join(modelDir, 'config.pbtxt'), 0o640);
    await saveDelay(repo, 7778);
    assert.equal((await stat(join(modelDir, 'config.pbtxt.bak'))).mode & 0o777, 0o640);
    assert.match(await readFile(join(modelDir, 'config.pbtxt.bak'), 'utf8'), /# edited by hand\n$/);
  });
});

test('a config.pbtxt linked to another file inside the repository is saved in place of its target', async () => {
  await withModel(async (repo, modelDir) => {
    const shared = join(repo, 'shared-config.pbtxt');
    await cp(join(modelDir, 'config.pbtxt'), shared);
    await rm(join(modelDir, 'config.pbtxt'));
    await symlink(shared, join(modelDir, 'config.pbtxt'));
    await saveDelay(repo, 8888);
    assert.match(await readFile(shared, 'utf8'), /8888/);
    assert.ok((await readdir(repo)).includes('shared-config.pbtxt.bak'));
  });
});
