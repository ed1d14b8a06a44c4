/**
 * `bin/inferscope` runs the server as its child (so worker threads inherit tsx). Killing the launcher
 * with SIGKILL (which it cannot forward) must not leave the server running and holding its port: the
 * server watches its parent and shuts down when it is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { ROOT } from '../support/server.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('SIGKILL of the launcher stops the server it started (no orphan holding the port)', { timeout: 120_000 }, async () => {
  const launcher = spawn(process.execPath, [join(ROOT, 'apps/server/bin/inferscope.mjs'), 'serve', '--model-repository', join(ROOT, 'model_repository'),
    '--model-control-mode', 'explicit', '--http-port', '0', '--grpc-port', '0', '--no-metrics'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: launcher.stdout! }).on('line', (l) => {
      const m = l.match(/on (http:\/\/\S+?)(,|$)/);
      if (m) resolve(m[1]);
    });
    launcher.once('exit', () => reject(new Error('launcher exited before serving')));
  });
  const child = Number(execFileSync('pgrep', ['-P', String(launcher.pid)], { encoding: 'utf8' }).trim().split('\n')[0]);
  assert.ok(child > 0 && alive(child));
  assert.equal((await fetch(url + '/v2/health/live')).status, 200);
  launcher.kill('SIGKILL');
  const t0 = Date.now();
  while (alive(child) && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 100));
  assert.equal(alive(child), false, 'the server exited after its launcher was killed');
  await assert.rejects(fetch(url + '/v2/health/live'), 'nothing listens on the port any more');
});
