/**
 * A SIGKILLed `inferscope fleet` supervisor (issue 28) left HAProxy running, its port answering 503, and
 * its temp folder behind. Every child now dies with the supervisor (replicas watch it; HAProxy and
 * Prometheus run under fleet/orphan-guard.ts), and the next run removes the temp folder of a supervisor
 * that is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ROOT, tempRepository } from '../support/server.ts';
import { startFleet } from '../../apps/server/src/fleet/fleet.ts';

const missing = ['haproxy', 'prometheus'].filter((b) => spawnSync(b, ['--version']).error);
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Pids of the processes whose command line names `text` (the fleet's children all name its temp folder). */
function processesNaming(text: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text)) pids.push(Number(p));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

test('SIGKILL of the fleet supervisor stops HAProxy, Prometheus and the replicas; the next run removes its temp folder', { skip: missing.length ? `needs ${missing.join(', ')}` : false, timeout: 240_000 }, async () => {
  const repo = await tempRepository(['mlp_classifier']);
  const supervisor = spawn(process.execPath, ['--import', tsx, join(ROOT, 'apps/server/src/cli/main.ts'), 'fleet', '--replicas', '1', '--port', '0',
    '--model-repository', repo.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const lb = await new Promise<string>((resolve, reject) => {
      createInterface({ input: supervisor.stdout! }).on('line', (l) => {
        const m = l.match(/\[fleet\] load balancer (http:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      supervisor.once('exit', () => reject(new Error('the supervisor exited before the fleet was up')));
    });
    const dir = readdirSync(tmpdir()).find((n) => n.startsWith(`inferscope-fleet-${supervisor.pid}-`));
    assert.ok(dir, 'the temp folder carries the supervisor\'s pid');
    const children = processesNaming(dir);
    const commands = children.map((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8'));
    assert.ok(commands.some((c) => c.startsWith('haproxy')), 'haproxy runs');
    assert.ok(commands.some((c) => c.startsWith('prometheus')), 'prometheus runs');
    assert.equal((await fetch(`${lb}/v2/health/live`)).status, 200);

    supervisor.kill('SIGKILL');
    for (let i = 0; i < 300 && processesNaming(dir).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(processesNaming(dir), [], 'no child of the killed supervisor is left');
    await assert.rejects(fetch(`${lb}/v2/health/live`), 'nothing listens on the balancer\'s port');
    assert.ok(existsSync(join(tmpdir(), dir)), 'the folder is still there until the next run');

    // the next run's start removes it (this run then stops at its missing haproxy binary)
    const logs: string[] = [];
    await assert.rejects(startFleet({ replicas: 1, modelRepositories: [repo.dir], haproxyBin: '/nonexistent/haproxy', log: (l) => logs.push(l) }), /not found/);
    assert.equal(existsSync(join(tmpdir(), dir)), false, 'the stale folder was removed at start');
    assert.ok(logs.some((l) => l.includes(dir)), JSON.stringify(logs));
  } finally {
    supervisor.kill('SIGKILL');
    await repo.remove();
  }
});
