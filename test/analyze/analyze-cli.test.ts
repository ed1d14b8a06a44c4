/**
 * `inferscope analyze` against a real server (port 0): a small live sweep in a separate process. The
 * ranking must follow the measured numbers it prints, every measured config must be the live one while
 * it was measured (the server's config.changed events), and the original config comes back at the end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, ROOT } from '../support/server.ts';

const MODEL = 'mlp_classifier';

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(ROOT, 'apps/server/bin/inferscope.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('exit', (code) => resolve({ code, out }));
  });
}

test('a small live sweep ranks what it measured and restores the config', { timeout: 240_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL] });
  const dir = mkdtempSync(join(tmpdir(), 'is-analyze-'));
  try {
    const configUrl = `${server.url}/v2/models/${MODEL}/versions/1/config`;
    const before = await (await fetch(configUrl)).json();
    const csvPath = join(dir, 'sweep.csv');
    const htmlPath = join(dir, 'sweep.html');
    const r = await run(['analyze', '-m', MODEL, '-x', '1', '-u', server.url, '--instances', '1,2', '--max-batch', '16', '--delay', '0,2000',
      '--preferred', 'max', '--search', 'grid', '--concurrency', '4', '--measurement-interval', '300', '--max-trials', '4',
      '--csv', csvPath, '--html', htmlPath]);
    assert.equal(r.code, 0, r.out);
    const lines = readFileSync(csvPath, 'utf8').trim().split('\n');
    const head = lines[0].split(',');
    const rows = lines.slice(1).map((l) => Object.fromEntries(l.replace(/"[^"]*"/g, 'quoted').split(',').map((v, i) => [head[i], v])));
    assert.equal(rows.length, 4, 'instances {1,2} x delay {0,2000}');
    for (const x of rows) assert.deepEqual([x.model, x.version, x.load], [MODEL, '1', 'concurrency 4'], 'each row names what was measured');
    // Ranks follow throughput among the ranked rows.
    const ranked = rows.filter((x) => x.rank !== '').sort((a, b) => Number(a.rank) - Number(b.rank));
    for (let i = 1; i < ranked.length; i++) assert.ok(Number(ranked[i - 1].throughput_per_s) >= Number(ranked[i].throughput_per_s), lines.join('\n'));
    for (const x of rows) {
      assert.ok(Number(x.throughput_per_s) > 0, 'each config served traffic');
      assert.ok(Number(x.avg_batch) >= 1, 'server-side batch size read from the statistics');
    }
    // Each measured config was applied live: the server saw delay 2000 and instance count 2.
    const changed = server.events.filter((e) => e.type === 'config.changed' && e.model === MODEL);
    assert.ok(changed.length >= 4, `live changes happened (${changed.length})`);
    assert.deepEqual(await (await fetch(configUrl)).json(), before, 'the original config is back');
    const html = readFileSync(htmlPath, 'utf8');
    assert.equal((html.match(/<circle[^>]*data-config/g) ?? []).length, 4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('analyze refuses a max_batch_size above the loaded one, with the reason', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: ['cnn_classifier'] });
  try {
    const r = await run(['analyze', '-m', 'cnn_classifier', '-u', server.url, '--max-batch', '64']);
    assert.equal(r.code, 2);
    assert.match(r.out, /max_batch_size can only be lowered live \(loaded: 16\)/);
  } finally {
    await server.close();
  }
});
