/**
 * Config write-back cannot corrupt a config. A child process saves a model's config in a loop (count 1
 * <-> 2) and is SIGKILLed at seeded random moments — between the temp write, the fsync, the .bak copy and
 * the rename. After every kill config.pbtxt must parse and be exactly the old or the new text; the model
 * folder must still scan and load (a leftover temp file is not a version or a config).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseModelConfig } from '@inferscope/core/config';
import { scanModelFolder } from '../../apps/server/src/repository/scan.ts';
import { mulberry32 } from '../../apps/server/src/loadgen/input-generator.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const KILLS = 10;

function startSaver(modelDir: string): Promise<{ kill(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/reliability/fixtures/save-loop.ts'), modelDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () =>
      resolve({
        async kill() {
          child.kill('SIGKILL');
          await exited;
        },
      }),
    );
    child.on('exit', (code) => reject(new Error(`save loop exited early (${code}): ${stderr}`)));
  });
}

test('SIGKILL during repeated saves never leaves a broken config.pbtxt', { timeout: 180_000 }, async () => {
  const repo = await mkdtemp(join(tmpdir(), 'is-writeback-'));
  const modelDir = join(repo, 'text_encoder');
  await cp(join(ROOT, 'model_repository/text_encoder'), modelDir, { recursive: true });
  const rand = mulberry32(7);
  const seen = new Map<number, number>();
  let brokenBackups = 0;
  try {
    for (let i = 0; i < KILLS; i++) {
      const saver = await startSaver(modelDir);
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 120)));
      await saver.kill();

      const text = await readFile(join(modelDir, 'config.pbtxt'), 'utf8');
      const cfg = parseModelConfig(text); // throws on a torn or empty file
      const count = cfg.instance_group?.[0]?.count;
      assert.ok(count === 1 || count === 2, `count after kill ${i} is ${count}`);
      assert.equal(cfg.name, 'text_encoder');
      assert.deepEqual(cfg.input?.[0]?.dims, [-1], 'the rest of the config survives the round trip');
      seen.set(count, (seen.get(count) ?? 0) + 1);
      // The backup is replaced atomically too (tmp + fsync + rename): it is never torn either.
      const bak = await readFile(join(modelDir, 'config.pbtxt.bak'), 'utf8').catch(() => undefined); // none before the first save
      try {
        if (bak !== undefined) parseModelConfig(bak);
      } catch {
        brokenBackups++;
      }
      const scanned = await scanModelFolder(repo, 'text_encoder');
      assert.equal(scanned.error, undefined);
      assert.deepEqual(scanned.versions.map((v) => v.version), [1]);
      assert.equal(scanned.configText, text);
    }
    const leftovers = (await readdir(modelDir)).filter((n) => n.includes('.tmp-'));
    assert.equal(brokenBackups, 0, 'a kill never leaves a torn config.pbtxt.bak');
    console.log(`writeback: ${KILLS} kills, final counts seen ${JSON.stringify(Object.fromEntries(seen))}, torn .bak ${brokenBackups}, leftover temp files ${leftovers.length}`);
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
});

test('a completed save keeps the previous file as .bak and writes text that parses back to the live config', async () => {
  const { saveModelConfig } = await import('../../apps/server/src/models/config-writeback/save-config.ts');
  const { realConfigEngine } = await import('./config-engine.ts');
  const repo = await mkdtemp(join(tmpdir(), 'is-writeback-'));
  const modelDir = join(repo, 'cnn_classifier');
  await cp(join(ROOT, 'model_repository/cnn_classifier'), modelDir, { recursive: true });
  try {
    const before = await readFile(join(modelDir, 'config.pbtxt'), 'utf8');
    const scanned = await scanModelFolder(repo, 'cnn_classifier');
    const raw = parseModelConfig(before);
    const live = structuredClone(raw);
    live.dynamic_batching = { ...live.dynamic_batching, max_queue_delay_microseconds: 4321 };
    const entry = { name: 'cnn_classifier', scanned, resolved: { raw }, maxBatchLimit: 16, versions: new Map() };
    const slot = { version: 1, state: 'READY', config: live, files: [], changedPaths: new Set(['dynamic_batching.max_queue_delay_microseconds']) };
    const result = await saveModelConfig(entry as never, slot as never, realConfigEngine, false);
    assert.equal(await readFile(join(modelDir, 'config.pbtxt.bak'), 'utf8'), before);
    const after = parseModelConfig(await readFile(join(modelDir, 'config.pbtxt'), 'utf8'));
    assert.equal(after.dynamic_batching?.max_queue_delay_microseconds, 4321);
    assert.deepEqual(after.dynamic_batching?.preferred_batch_size, [4, 8]);
    assert.match(result.diff, /4321/);
    assert.deepEqual((await readdir(modelDir)).filter((n) => n.includes('.tmp-')), [], 'a completed save leaves no temp file');
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
});
