#!/usr/bin/env node
// Runs every *.test.ts file under packages/, apps/ and test/ with node's built-in test runner and tsx.
// Node 20 cannot glob TypeScript test files itself, so we collect them here.
// Usage: node scripts/run-tests.mjs [path-filter ...]   (filters are substrings of the file path)
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const roots = ['packages', 'apps', 'test'];
const skip = new Set(['node_modules', 'dist', 'output', 'bench']);
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (name.endsWith('.test.ts') || name.endsWith('.test.tsx')) files.push(relative(root, full));
  }
}
for (const r of roots) {
  try { walk(join(root, r)); } catch { /* folder absent */ }
}
const filters = process.argv.slice(2);
const selected = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const child = spawn(
  process.execPath,
  [
    '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec',
    // A test file whose failure leaves a handle open (a server, a browser) must not hang the run:
    // exit once its tests are done, and fail any single test that runs past four minutes.
    '--test-force-exit', `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? 240000}`,
    ...selected,
  ],
  { cwd: root, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
