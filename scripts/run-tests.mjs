#!/usr/bin/env node
// Runs every *.test.ts file under packages/, apps/, bench/ and test/ with node's built-in test runner and tsx.
// Node 20 cannot glob TypeScript test files itself, so we collect them here.
// Usage: node scripts/run-tests.mjs [path-filter ...]   (filters are substrings of the file path)
//
// Each file runs in its own child process (as `node --test` would), in two phases:
//   1. unit and integration files, TEST_CONCURRENCY (default 2) at a time;
//   2. the heavy files (browser end-to-end, reliability: a real server plus Chromium or a flood of
//      requests each), one at a time, so their timing never competes with another heavy file on a
//      2-core machine.
// A file's output is printed in one piece when it ends (never interleaved), then a summary: the counts,
// the failed files and the slowest files with their durations.
import { spawn } from 'node:child_process';
import { REPO_ROOT, testFiles } from './test-files.mjs';

const root = REPO_ROOT;
// bench/ holds benchmark scripts (never *.test.ts, so never run here) and the lab's own tests, which run.
const files = testFiles(['packages', 'apps', 'bench', 'test']);
const filters = process.argv.slice(2);
const selected = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const HEAVY = [/^test\/e2e\//, /^test\/reliability\//, /^test\/fleet\/fleet/];
const isHeavy = (f) => HEAVY.some((re) => re.test(f));
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2));
// A whole file past this is killed (with its process group: servers, browsers), so a hung test cannot hang
// the run. Tests that may legitimately take long state their own { timeout }.
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 480_000);
const reportOpenHandles = new URL('./report-open-handles.mjs', import.meta.url).href;

// Children run in their own process groups (so a timeout can kill a file's browser too); pass an
// interrupt of this runner on to them.
const live = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const pid of live) { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } }
    process.exit(130);
  });
}

/**
 * What a failed file said about its failures, for the closing summary: CI may keep only the end of the
 * log, so the reason must be there too, not only in the file's output far above. The spec reporter ends a
 * file with a "failing tests:" section; without one (a crash, a kill) the file's last lines stand in.
 */
function failureExcerpt(out, maxLines = 40) {
  const at = out.lastIndexOf('✖ failing tests:');
  const lines = (at >= 0 ? out.slice(at) : out).trimEnd().split('\n');
  const kept = at >= 0 ? lines.slice(0, maxLines) : lines.slice(-maxLines);
  const cut = lines.length - kept.length;
  return kept.map((l) => `    ${l}`).join('\n') + (cut > 0 ? `\n    … ${cut} more lines above in the file's output` : '');
}

/** @returns {Promise<{file: string, ms: number, code: number, counts: Record<string, number>, why: string}>} */
function runFile(file) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        // The file runs directly, not under `--test`: node 20 applies --test-timeout to a whole file run
        // that way (a slow but healthy file would fail), so the hang guard is the kill timer below.
        // A file exits once its tests are done (--test-force-exit), so a leaked handle cannot hang it,
        // and report-open-handles.mjs fails the file and names what it left open.
        '--import', 'tsx', '--import', reportOpenHandles, '--test-reporter=spec', '--test-force-exit',
        file,
      ],
      // INFERSCOPE_TEST_HOOKS: the product's test-only hooks answer (the worker's crash()), here only
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, INFERSCOPE_TEST_HOOKS: '1' } },
    );
    live.add(child.pid);
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    }, fileTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child.pid);
      const ms = performance.now() - t0;
      const counts = {};
      for (const m of out.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) counts[m[1]] = Number(m[2]);
      if (killed) out += `\n✖ ${file}: killed after ${fileTimeoutMs} ms\n`;
      const failed = code !== 0 || killed || signal !== null;
      process.stdout.write(`\n${failed ? '✖' : '▶'} ${file} (${(ms / 1000).toFixed(1)} s)${failed ? ` FAILED: exit ${code ?? signal}` : ''}\n${out}`);
      resolve({ file, ms, code: failed ? (code || 1) : 0, counts, why: failed ? failureExcerpt(out) : '' });
    });
  });
}

async function runPool(list, width) {
  const results = [];
  let next = 0;
  const lane = async () => {
    while (next < list.length) results.push(await runFile(list[next++]));
  };
  await Promise.all(Array.from({ length: Math.min(width, list.length) }, lane));
  return results;
}

const start = performance.now();
const results = [
  ...(await runPool(selected.filter((f) => !isHeavy(f)), concurrency)),
  ...(await runPool(selected.filter(isHeavy), 1)),
];
const total = {};
for (const r of results) for (const [k, v] of Object.entries(r.counts)) total[k] = (total[k] ?? 0) + v;
const failed = results.filter((r) => r.code !== 0);
console.log(`\n══ ${results.length} files in ${((performance.now() - start) / 1000).toFixed(1)} s: ` +
  Object.entries(total).map(([k, v]) => `${k} ${v}`).join(', '));
console.log('slowest files:');
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file}`);
if (failed.length > 0) {
  console.log('FAILED files:');
  for (const r of failed) console.log(`  ${r.file}\n${r.why}`);
}
// The plain closing line CI reads (the per-file node:test summaries above are not the last word).
console.log(`tests: ${total.pass ?? 0} passed, ${(total.fail ?? 0) + failed.filter((r) => !r.counts.fail).length} failed, ${total.skipped ?? 0} skipped`);
process.exit(failed.length > 0 ? 1 : 0);
