// The layering rules of eslint.config.js, checked on probe sources at the paths they would have: a rule
// that stopped firing (a typo in a pattern, a moved folder) fails here, not in review.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const cwd = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd });

async function problems(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${cwd}${path}` });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

test('core may import core and nothing from node or the apps', async () => {
  assert.deepEqual(await problems('packages/core/src/probe.ts', "import { RealClock } from './clock/index.ts';\nimport type { SchedulerEvent } from './events';\nexport { RealClock };\nexport type E = SchedulerEvent;\n"), []);
  for (const code of [
    "import { readFileSync } from 'node:fs';",
    "import { join } from 'path';",
    "import { promises } from 'fs/promises';",
    "import { EventEmitter } from 'events';",
    "import { buildApp } from '../../../apps/server/src/app.ts';",
    "import { store } from '@inferscope/web/src/store/app-store.ts';",
  ]) {
    const found = await problems('packages/core/src/probe.ts', `${code}\n`);
    assert.ok(found.some((p) => p.startsWith('no-restricted-imports')), `${code} was allowed in core`);
  }
});

test('core uses no DOM or node globals', async () => {
  for (const code of ['export const t = document.title;', 'export const w = window.innerWidth;', 'export const e = process.env;', "export const b = Buffer.from('x');"]) {
    const found = await problems('packages/core/src/probe.ts', `${code}\n`);
    assert.ok(found.some((p) => p.startsWith('no-restricted-globals')), `${code} was allowed in core`);
  }
});

test('the dashboard imports no node built-in and nothing from the server; the server nothing from the dashboard', async () => {
  assert.ok((await problems('apps/web/src/probe.ts', "import { readFileSync } from 'node:fs';\n")).length > 0);
  assert.ok((await problems('apps/web/src/probe.ts', "import { buildApp } from '../../server/src/app.ts';\n")).length > 0);
  assert.ok((await problems('apps/server/src/probe.ts', "import { App } from '../../web/src/App.tsx';\n")).length > 0);
  assert.deepEqual(await problems('apps/server/src/probe.ts', "import { readFileSync } from 'node:fs';\nimport { RealClock } from '@inferscope/core/clock';\nexport { readFileSync, RealClock };\n"), []);
});

test('no product code imports the bench workspace; the bench imports the product', async () => {
  for (const [path, code] of [
    ['packages/core/src/sim/probe.ts', "import { x } from '../../../../bench/sim/host.ts';"],
    ['apps/server/src/cli/probe.ts', "import { x } from '../../../../bench/calibration/probe.ts';"],
    ['apps/server/src/cli/probe.ts', "import { x } from '@inferscope/bench/sim/host.ts';"],
    ['apps/web/src/probe.ts', "import { x } from '@inferscope/bench';"],
  ]) {
    const found = await problems(path, `${code}\nexport { x };\n`);
    assert.ok(found.some((p) => p.startsWith('no-restricted-imports')), `${code} was allowed in ${path}`);
  }
  assert.deepEqual(await problems('bench/sim/probe.ts', "import { RealClock } from '@inferscope/core/clock';\nimport { buildApp } from '../../apps/server/src/app.ts';\nexport { RealClock, buildApp };\n"), []);
});

test('the apps import core by area, never a file inside one', async () => {
  for (const [path, code] of [
    ['apps/server/src/probe.ts', "import { MinHeap as x } from '@inferscope/core/util/min-heap.ts';"],
    ['apps/web/src/probe.ts', "import { parseModelConfig as x } from '@inferscope/core/config/parser.ts';"],
    ['apps/server/src/probe.ts', "import type { SchedulerEvent as x } from '@inferscope/core/events.ts';"],
  ]) {
    const found = await problems(path, `${code}\nexport { x };\n`);
    assert.ok(found.some((p) => p.startsWith('no-restricted-imports')), `${code} was allowed in ${path}`);
  }
  assert.deepEqual(await problems('apps/web/src/probe.ts', "import { MinHeap } from '@inferscope/core/util';\nimport { parseModelConfig } from '@inferscope/core/config';\nexport { MinHeap, parseModelConfig };\n"), []);
});

test('a disable comment must name a rule that is on and needed', async () => {
  const found = await problems('packages/core/src/probe.ts', '// eslint-disable-next-line no-control-regex\nexport const x = 1;\n');
  assert.ok(found.some((p) => /Unused eslint-disable/.test(p)), found.join('\n'));
});
