// A child's process group ends with it: what the child forked is killed when the child exits, and every
// live group is killed when this process exits uncleanly (an uncaught exception), so nothing outlives it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnInGroup } from './process-group';

/** Whether `pid` runs (a zombie does not: a PID 1 that does not reap may keep it). */
function running(pid: number): boolean {
  try {
    const state = /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (running(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return !running(pid);
}

test('when the group leader exits, what it forked is killed (it held the leader\'s stdout)', async () => {
  const child = spawnInGroup('sh', ['-c', 'sleep 600 & echo $!; exit 3'], { stdio: ['ignore', 'pipe', 'ignore'] }, { label: 'test', busy: () => '' });
  const grandchild = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  assert.equal(code, 3);
  assert.ok(await gone(grandchild), `forked child ${grandchild} killed with its group`);
  child.stdout!.destroy();
});

test('an unclean exit of the owning process kills its live groups, grandchildren included', { timeout: 60_000 }, async () => {
  const script = fileURLToPath(new URL('./process-group.script.ts', import.meta.url));
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script], { timeout: 30_000 }, (err, out) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout: out }));
  });
  assert.notEqual(code, 0, 'the script died of its exception');
  const [leader, grandchild] = stdout.trim().split(/\s+/).map(Number);
  assert.ok(leader > 0 && grandchild > 0, stdout);
  assert.ok(await gone(leader), `group leader ${leader} killed`);
  assert.ok(await gone(grandchild), `grandchild ${grandchild} killed`);
});
