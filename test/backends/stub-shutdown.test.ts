// No orphan or zombie stub processes: the real `inferscope serve` process with two python instances is
// sent SIGTERM (graceful: finalize, exit, reaped) or SIGKILL (the stubs die with it: PR_SET_PDEATHSIG);
// afterwards none of its stub pids exists any more, not even as a zombie.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { childPids } from '../../apps/server/src/backends/stub/proc-memory';
import { ROOT } from '../support/server.ts';
import { ADD_SUB_PY, NO_NUMPY, addSubConfig, tempRepo } from './stub-fixtures.ts';

const require = createRequire(import.meta.url);
const TSX = new URL('file://' + require.resolve('tsx')).href;

/** Whether `pid` is still there; a zombie (state Z) counts unless `zombieOk`. */
function alive(pid: number, zombieOk = false): boolean {
  try {
    const state = /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
    return state !== 'X' && !(zombieOk && state === 'Z');
  } catch {
    return false;
  }
}

async function serveAndStop(signal: 'SIGTERM' | 'SIGKILL'): Promise<{ stubs: number[]; output: string; code: number | null }> {
  const repo = tempRepo();
  repo.add('add_sub', addSubConfig('add_sub').replace('count: 1', 'count: 2'), { 'model.py': ADD_SUB_PY });
  const child = spawn(process.execPath, ['--import', TSX, `${ROOT}apps/server/src/cli/main.ts`, 'serve', '--model-repository', repo.dir, '--http-port', '0', '--no-metrics'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const until = Date.now() + 60_000;
    while (!output.includes('serving KServe v2')) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const stubs = childPids(child.pid!);
    assert.equal(stubs.length, 2, `two stub processes under the server:\n${output}`);
    child.kill(signal);
    const code = await exited;
    // SIGKILL: the kernel delivers the death signal to the stubs as the server dies; give it a moment.
    const until2 = Date.now() + 10_000;
    while (stubs.some((p) => alive(p, true)) && Date.now() < until2) await new Promise((r) => setTimeout(r, 20));
    return { stubs, output, code };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    repo.remove();
  }
}

test('SIGTERM of the server stops its stubs gracefully and leaves no child process behind', { skip: NO_NUMPY }, async () => {
  const { stubs, output, code } = await serveAndStop('SIGTERM');
  assert.equal(code, 0, output);
  assert.deepEqual(stubs.filter((p) => alive(p)), [], 'no orphan or zombie stub');
  assert.match(output, /\[add_sub\/1\/add_sub_0_0\] Cleaning up\.\.\./, 'finalize() ran in each stub');
  assert.match(output, /\[add_sub\/1\/add_sub_0_1\] Cleaning up\.\.\./);
});

test('SIGKILL of the server takes its stubs with it (no orphans)', { skip: NO_NUMPY }, async () => {
  const { stubs } = await serveAndStop('SIGKILL');
  // A killed server cannot reap: whether its dead stubs linger as zombies is up to PID 1 of the host.
  assert.deepEqual(stubs.filter((p) => alive(p, true)), [], 'no orphan stub still running');
});
