// `inferscope serve` as a user runs it: a child process on port 0, then SIGTERM: it drains, unloads and
// exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

test('serve starts, answers, and exits 0 on SIGTERM after unloading', async () => {
  const repo = await mkdtemp(join(tmpdir(), 'inferscope-cli-'));
  await cp(join(ROOT, 'model_repository/cnn_classifier'), join(repo, 'cnn_classifier'), { recursive: true });
  const child = spawn(process.execPath, [join(ROOT, 'apps/server/bin/inferscope.mjs'), 'serve', '--model-repository', repo, '--http-port', '0', '--grpc-port', '0', '--no-metrics', '--recordings-dir', join(repo, 'rec')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 'serving' line in 60 s:\n${out}`)), 60_000);
      child.stdout.on('data', () => {
        const m = /serving KServe v2 and the dashboard on (http:\/\/[0-9.:]+)/.exec(out);
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
      void exited.then((code) => reject(new Error(`exited early (${code}):\n${out}`)));
    });
    assert.equal((await fetch(`${url}/v2/models/cnn_classifier/ready`)).status, 200);
    assert.match(out, /serving gRPC \(inference\.GRPCInferenceService\) on 127\.0\.0\.1:\d+/, 'the gRPC endpoint listens on a free port');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.match(out, /SIGTERM: draining in-flight requests and unloading models/);
    assert.match(out, /cnn_classifier:1 UNAVAILABLE \(server shutting down\)/);
    assert.match(out, /stopped/);
  } finally {
    child.kill('SIGKILL');
  }
});

test('serve refuses bad options with exit code 2 and the flag named', async () => {
  const child = spawn(process.execPath, [join(ROOT, 'apps/server/bin/inferscope.mjs'), 'serve', '--model-repository', 'x', '--model-control-mode', 'sometimes'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.equal(code, 2);
  assert.match(err, /--model-control-mode must be none, poll or explicit/);
});
