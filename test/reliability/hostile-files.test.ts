/**
 * Files in the repository that are not regular files (issue 13, item 2): a FIFO or a link to /dev/zero as
 * config.pbtxt, a FIFO as the model file or as warmup data, a link to /dev/zero as a trace to replay.
 * Before the fix a FIFO parked a thread-pool thread per read (the server never listened, index and loads
 * of other models hung, SIGTERM did nothing) and /dev/zero read until memory ran out. Now each such model
 * is UNAVAILABLE with the reason, every other call answers, replacing the file recovers, SIGTERM ends it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_REPO, ROOT, MiB, startServer, tempRepository, type Running } from './harness.ts';

let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: Running;
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

async function copyText(name: string): Promise<string> {
  const dir = join(repo.dir, name);
  await cp(join(DEMO_REPO, 'text_encoder'), dir, { recursive: true });
  const config = (await readFile(join(DEMO_REPO, 'text_encoder/config.pbtxt'), 'utf8')).replace('name: "text_encoder"', `name: "${name}"`);
  await writeFile(join(dir, 'config.pbtxt'), config);
  return dir;
}

/** Resolves with the call's outcome, or 'timeout': nothing in this file may take longer than a few seconds. */
function within<T>(p: Promise<T>, ms = 20_000): Promise<T | 'timeout'> {
  return Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref())]);
}

before(async () => {
  repo = await tempRepository(['mlp_classifier']);
  const fifoConfig = await copyText('fifo_config');
  await rm(join(fifoConfig, 'config.pbtxt'));
  mkfifo(join(fifoConfig, 'config.pbtxt'));
  const zeroConfig = await copyText('zero_config');
  await rm(join(zeroConfig, 'config.pbtxt'));
  await symlink('/dev/zero', join(zeroConfig, 'config.pbtxt'));
  const fifoModel = await copyText('fifo_onnx');
  await rm(join(fifoModel, '1/model.onnx'));
  mkfifo(join(fifoModel, '1/model.onnx'));
  server = await within(startServer({ repositories: [repo.dir], controlMode: 'explicit', loadModels: ['mlp_classifier'] }), 60_000) as Running;
  assert.notEqual(server, 'timeout', 'the server never listened');
});

after(async () => {
  await server?.close?.();
  await repo?.remove();
});

test('FIFO and /dev/zero configs: refused with the reason, nothing else waits, no memory grows', { timeout: 120_000 }, async () => {
  const rss0 = process.memoryUsage().rss;
  // Three index scans and a load of each hostile model at once (used to exhaust the 4 pool threads).
  const calls = [
    ...[1, 2, 3].map(() => server.app.inject({ method: 'POST', url: '/v2/repository/index', payload: {} })),
    ...['fifo_config', 'zero_config', 'fifo_onnx'].map((m) => server.app.inject({ method: 'POST', url: `/v2/repository/models/${m}/load`, payload: {} })),
  ];
  const results = await within(Promise.all(calls));
  assert.notEqual(results, 'timeout', 'index/load hung on a non-regular file');
  const [i1, i2, i3, fifo, zero, onnx] = results as Awaited<(typeof calls)[number]>[];
  for (const i of [i1, i2, i3]) assert.equal(i.statusCode, 200, i.body);
  assert.equal(fifo.statusCode, 400, fifo.body);
  assert.match(fifo.json().error, /FIFO, only regular files are read/);
  assert.equal(zero.statusCode, 400, zero.body);
  assert.match(zero.json().error, /character device, only regular files are read/);
  assert.equal(onnx.statusCode, 400, onnx.body);
  assert.match(onnx.json().error, /FIFO|unable to find/);
  assert.ok(process.memoryUsage().rss - rss0 < 200 * MiB, `RSS grew ${((process.memoryUsage().rss - rss0) / MiB).toFixed(0)} MiB`);
  // The other model and the rest of the server answer meanwhile.
  const ready = await within(server.app.inject({ method: 'GET', url: '/v2/models/mlp_classifier/ready' }));
  assert.notEqual(ready, 'timeout');
  assert.equal((ready as { statusCode: number }).statusCode, 200);
  console.log('hostile files: 3 index scans + 3 loads of FIFO / /dev/zero files answered; RSS +%s MiB', ((process.memoryUsage().rss - rss0) / MiB).toFixed(0));
});

test('replacing the FIFO with a real config recovers the model', { timeout: 120_000 }, async () => {
  const dir = join(repo.dir, 'fifo_config');
  await rm(join(dir, 'config.pbtxt'));
  await writeFile(join(dir, 'config.pbtxt'), (await readFile(join(DEMO_REPO, 'text_encoder/config.pbtxt'), 'utf8')).replace('name: "text_encoder"', 'name: "fifo_config"'));
  const res = await within(server.app.inject({ method: 'POST', url: '/v2/repository/models/fifo_config/load', payload: {} }));
  assert.notEqual(res, 'timeout');
  assert.equal((res as { statusCode: number; body: string }).statusCode, 200, (res as { body: string }).body);
});

test('a trace that links to /dev/zero or is a FIFO is refused by startReplay without reading it', { timeout: 60_000 }, async () => {
  await symlink('/dev/zero', join(server.recordingsDir, 'zero.ndjson'));
  mkfifo(join(server.recordingsDir, 'fifo.ndjson'));
  for (const trace of ['zero.ndjson', 'fifo.ndjson']) {
    const r = await within(server.load.startReplay({ trace }, 'test').then(() => 'started', (e: Error) => e.message));
    assert.notEqual(r, 'timeout', trace);
    assert.notEqual(r, 'started', trace);
    assert.match(String(r), /not a regular file|only regular files|symbolic link/, trace);
  }
});

test('serve starts and listens with a FIFO config in the repository, and SIGTERM ends it', { timeout: 120_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/cli/main.ts', 'serve', '--model-repository', repo.dir, '--http-port', '0', '--no-metrics'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const dir = join(repo.dir, 'fifo_config');
  await rm(join(dir, 'config.pbtxt'));
  mkfifo(join(dir, 'config.pbtxt'));
  let output = '';
  const listening = new Promise<boolean>((resolve) => {
    const onData = (d: Buffer) => {
      output += d;
      if (/listening|http:\/\/127\.0\.0\.1:\d+/i.test(output)) resolve(true);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => resolve(false));
  });
  const up = await within(listening, 90_000);
  assert.equal(up, true, `serve did not listen: ${output}`);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.kill('SIGTERM');
  const code = await within(exited, 20_000);
  if (code === 'timeout') child.kill('SIGKILL');
  assert.notEqual(code, 'timeout', 'SIGTERM did not end the server');
});

test('the CLI reads configs the same way: `config check` on a FIFO config answers instead of hanging', { timeout: 120_000 }, async () => {
  const dir = join(repo.dir, 'fifo_cli');
  await copyText('fifo_cli');
  await rm(join(dir, 'config.pbtxt'));
  mkfifo(join(dir, 'config.pbtxt'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/cli/main.ts', 'config', 'check', dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await within(new Promise<number | null>((r) => child.on('exit', (c) => r(c))), 90_000);
  if (code === 'timeout') child.kill('SIGKILL');
  assert.notEqual(code, 'timeout', 'config check hung on a FIFO');
  assert.notEqual(code, 0);
  assert.match(output, /FIFO/);
});
