// The private folders of repository loads with `file:` contents live exactly as long as their server:
// removed on close, on SIGINT/SIGTERM, at the next start after a SIGKILL (owner pid dead), and never while
// their owner lives (another server in this process, or another process).
// TMPDIR points at a folder of this test's own, so no other test's folders are seen or touched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_REPO, ROOT, startTestServer } from '../support/server';
import { processAlive as pidAlive } from '../../apps/server/src/child-process/process-alive';

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'is-load-folders-'));
  process.env.TMPDIR = scratch; // os.tmpdir() reads it on every call: servers below make their folders here
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const loadFolders = async () => (await readdir(scratch)).filter((n) => n.startsWith('inferscope-load-')).sort();
const config = JSON.stringify({ backend: 'onnxruntime', max_batch_size: 4, input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }], output: [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [10] }] });
let onnx: string;
async function loadFromFiles(url: string, model: string): Promise<void> {
  onnx ??= (await readFile(join(DEMO_REPO, 'mlp_classifier/1/model.onnx'))).toString('base64');
  const r = await fetch(`${url}/v2/repository/models/${model}/load`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ parameters: { config, 'file:1/model.onnx': onnx } }) });
  assert.equal(r.status, 200, await r.text());
}
const emptyRepo = async () => {
  const dir = join(scratch, `repo-${Math.random().toString(36).slice(2)}`);
  await mkdir(dir);
  return dir;
};

/** A pid that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('exit', r));
  assert.equal(pidAlive(child.pid!), false);
  return child.pid!;
}

test('server close removes the folders of models still loaded from files', async () => {
  const server = await startTestServer({ modelRepositories: [await emptyRepo()], modelControlMode: 'explicit', live: false, grpcPort: null });
  try {
    await loadFromFiles(server.url, 'a');
    await loadFromFiles(server.url, 'b');
    const made = await loadFolders();
    assert.equal(made.length, 2);
    for (const name of made) assert.match(name, new RegExp(`^inferscope-load-${process.pid}-`), 'the owner pid is in the name');
  } finally {
    await server.close();
  }
  assert.deepEqual(await loadFolders(), []);
});

test("a start removes folders of dead servers, never a live one's (same process or another)", async () => {
  const dead = `inferscope-load-${await deadPid()}-AbC123`;
  const otherLive = `inferscope-load-${process.ppid}-XyZ789`; // the test runner: alive
  const notOurs = 'inferscope-load-nopid';
  for (const n of [dead, otherLive, notOurs]) await mkdir(join(scratch, n, 'm', '1'), { recursive: true });
  const first = await startTestServer({ modelRepositories: [await emptyRepo()], modelControlMode: 'explicit', live: false, grpcPort: null });
  try {
    assert.deepEqual(await loadFolders(), [notOurs, otherLive].sort(), 'the dead pid folder is gone at start');
    await loadFromFiles(first.url, 'm');
    const mine = (await loadFolders()).filter((n) => n.startsWith(`inferscope-load-${process.pid}-`));
    assert.equal(mine.length, 1);
    const second = await startTestServer({ modelRepositories: [await emptyRepo()], modelControlMode: 'explicit', live: false, grpcPort: null });
    await second.close();
    assert.deepEqual(await loadFolders(), [...mine, notOurs, otherLive].sort(), "another server's start and close leave a live server's folder");
    const r = await fetch(`${first.url}/v2/models/m/ready`);
    assert.equal(r.status, 200);
  } finally {
    await first.close();
  }
  assert.deepEqual(await loadFolders(), [notOurs, otherLive].sort());
  for (const n of [otherLive, notOurs]) await rm(join(scratch, n), { recursive: true });
});

test('a process that exits without closing (process.exit) removes its folders in the exit hook', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/repository/exit-hook.script.ts')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: scratch }, cwd: ROOT });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  assert.equal(code, 0, out);
  const { folder, pending } = JSON.parse(out) as { folder: string; pending: string };
  assert.match(folder, /inferscope-load-\d+-/);
  const left = await readdir(scratch);
  assert.equal(left.includes(folder.split('/').pop()!), false, 'the attached folder is gone');
  assert.equal(left.includes(pending.split('/').pop()!), false, 'the folder still being written is gone');
});

/** `inferscope serve` in a child process with TMPDIR = scratch; resolves its URL once it listens. */
async function serveChild() {
  const repo = await emptyRepo();
  const child = spawn(process.execPath, [join(ROOT, 'apps/server/bin/inferscope.mjs'), 'serve', '--model-repository', repo, '--model-control-mode', 'explicit', '--http-port', '0', '--no-grpc', '--no-metrics', '--recordings-dir', join(repo, 'rec')],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: scratch } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (code, signal) => r(code ?? signal)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 'serving' line in 90 s:\n${out}`)), 90_000);
    child.stdout.on('data', () => {
      const m = /serving KServe v2 and the dashboard on (http:\/\/[0-9.:]+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
    void exited.then((code) => reject(new Error(`exited early (${code}):\n${out}`)));
  });
  return { child, url, exited, output: () => out };
}

/** Loads a model from files on the child server; returns the new folder and the server pid its name carries
 * (the launcher `bin/inferscope.mjs` runs the server in a process of its own). */
async function loadOnChild(url: string): Promise<{ folder: string; serverPid: number }> {
  const before = await loadFolders();
  await loadFromFiles(url, 'files_model');
  const made = (await loadFolders()).filter((n) => !before.includes(n));
  assert.equal(made.length, 1);
  const serverPid = Number(/^inferscope-load-(\d+)-/.exec(made[0]!)?.[1]);
  assert.ok(serverPid !== process.pid && pidAlive(serverPid), 'the name carries the live server pid');
  return { folder: made[0]!, serverPid };
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`serve removes its load folders when it exits on ${signal}`, async () => {
    const s = await serveChild();
    try {
      const { folder } = await loadOnChild(s.url);
      s.child.kill(signal); // the launcher forwards it to the server, as a user's Ctrl-C or `kill` does
      assert.equal(await s.exited, 0, s.output());
      assert.equal((await loadFolders()).includes(folder), false, s.output());
    } finally {
      s.child.kill('SIGKILL');
    }
  });
}

test('after a SIGKILL the folder stays until the next server starts, which removes it', async () => {
  const s = await serveChild();
  let folder = '';
  try {
    const loaded = await loadOnChild(s.url);
    folder = loaded.folder;
    process.kill(loaded.serverPid, 'SIGKILL'); // the server itself: nothing of it runs any more
    await s.exited;
  } finally {
    s.child.kill('SIGKILL');
  }
  assert.equal((await loadFolders()).includes(folder), true, 'nothing ran to remove it');
  const next = await startTestServer({ modelRepositories: [await emptyRepo()], modelControlMode: 'explicit', live: false, grpcPort: null });
  await next.close();
  assert.equal((await loadFolders()).includes(folder), false, 'removed by the next start');
});
