#!/usr/bin/env node
// The unit tier (`npm run test:unit`): the pure and virtual-clock tests (core, the web app's logic, the
// scheduler on the virtual clock) imported into ONE process, so they run without a process start per file.
// `npm test` still runs every file, these included, each in its own process (scripts/run-tests.mjs).
// Tests on the real clock or a real server stay out: they are integration tests by nature.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const UNIT_ROOTS = ['packages/core', 'apps/web', 'test/scheduler'];
// Scheduler files that measure the real clock's timers: real time, so not the unit tier.
const REAL_TIME = new Set(['test/scheduler/real-clock.test.ts', 'test/scheduler/fine-wait.test.ts']);
const skip = new Set(['node_modules', 'dist']);

const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (/\.test\.tsx?$/.test(name) && !REAL_TIME.has(relative(root, full))) files.push(full);
  }
}
for (const r of UNIT_ROOTS) walk(join(root, r));
files.sort();

// Static imports: every file registers its tests before the runner starts (a dynamic import after the
// first file's tests would find the run already over).
const dir = mkdtempSync(join(tmpdir(), 'inferscope-unit-'));
const entry = join(dir, 'unit-tier.mjs');
writeFileSync(entry, files.map((f) => `import ${JSON.stringify(pathToFileURL(f).href)};`).join('\n') + '\n');
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test-reporter=spec', '--test-force-exit', entry],
  { cwd: root, stdio: 'inherit', env: { ...process.env, INFERSCOPE_TEST_HOOKS: '1' } },
);
rmSync(dir, { recursive: true, force: true });
console.log(`unit tier: ${files.length} files in one process`);
process.exit(run.status ?? 1);
