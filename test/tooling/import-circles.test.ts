// No import circles in the product: two files that import each other (directly or around a loop) cannot
// be read, tested or moved apart. The graph is read from the sources, so a circle added later fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { importCircles, productImportGraph } from './import-graph.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('the product has no import circles', () => {
  const graph = productImportGraph(root);
  assert.ok(graph.size > 300, `read only ${graph.size} product files: the reader lost its way`);
  assert.deepEqual(importCircles(graph).map((c) => c.join(' <-> ')), []);
});

test('the circle finder finds a direct circle, a loop of three and a self-import, and nothing in a chain', () => {
  const graph = new Map<string, string[]>([
    ['a', ['b']], ['b', ['a']],
    ['c', ['d']], ['d', ['e']], ['e', ['c']],
    ['f', ['f']],
    ['g', ['h']], ['h', ['i']], ['i', []],
  ]);
  assert.deepEqual(importCircles(graph).map((c) => c.join(',')).sort(), ['a,b', 'c,d,e', 'f']);
});

test('the reader resolves relative imports and core areas through the package exports', () => {
  const graph = productImportGraph(root);
  const manager = graph.get('apps/server/src/models/model-manager.ts') ?? [];
  assert.ok(manager.includes('apps/server/src/models/types.ts'), manager.join('\n'));
  assert.ok(manager.some((f) => f.startsWith('packages/core/src/') && f.endsWith('index.ts')), manager.join('\n'));
});

test("core's areas depend on each other one way (scheduler never on the live wire, config never on the autotuner)", () => {
  const areaOf = (file: string) => (file.startsWith('packages/core/src/') ? file.split('/')[3].replace(/\.ts$/, '') : undefined);
  const areas = new Map<string, string[]>();
  for (const [file, targets] of productImportGraph(root)) {
    const from = areaOf(file);
    if (!from) continue;
    const to = new Set(areas.get(from) ?? []);
    for (const t of targets) {
      const area = areaOf(t);
      if (area && area !== from) to.add(area);
    }
    areas.set(from, [...to]);
  }
  assert.ok(areas.size >= 10, [...areas.keys()].join(' '));
  assert.deepEqual(importCircles(areas), []);
  assert.ok(!areas.get('scheduler')!.includes('live'), 'the scheduler imports the live wire module');
});
