#!/usr/bin/env node
// The unit tier (`npm run test:unit`): the pure and virtual-clock tests (core, the web app's logic, the
// scheduler on the virtual clock) imported into ONE process, so they run without a process start per file.
// `npm test` still runs every file, these included, each in its own process (scripts/run-tests.mjs).
// Tests on the real clock or a real server stay out: they are integration tests by nature.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, testFiles } from './test-files.mjs';

const UNIT_ROOTS = ['packages/core', 'apps/web', 'test/scheduler'];
// Scheduler files that measure the real clock's timers: real time, so not the unit tier.
const REAL_TIME = new Set(['test/scheduler/real-clock.test.ts', 'test/scheduler/fine-wait.test.ts']);
const files = testFiles(UNIT_ROOTS).filter((f) => !REAL_TIME.has(f)).map((f) => join(REPO_ROOT, f));

// Static imports: every file registers its tests before the runner starts (a dynamic import after the
// first file's tests would find the run already over).
const dir = mkdtempSync(join(tmpdir(), 'inferscope-unit-'));
const entry = join(dir, 'unit-tier.mjs');
writeFileSync(entry, files.map((f) => `import ${JSON.stringify(pathToFileURL(f).href)};`).join('\n') + '\n');
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test-reporter=spec', '--test-force-exit', entry],
  { cwd: REPO_ROOT, stdio: 'inherit', env: { ...process.env, INFERSCOPE_TEST_HOOKS: '1' } },
);
rmSync(dir, { recursive: true, force: true });
console.log(`unit tier: ${files.length} files in one process`);
process.exit(run.status ?? 1);
