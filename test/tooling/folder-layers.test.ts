// Each app's folders import one way, in the order its layer file declares: no folder circle, no upward
// import, no import between peers of one layer. The graph is read from the sources, so a new folder or a
// new import against the order fails here, naming the file and what it imports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { productImportGraph } from './import-graph.ts';
import { folderGraph, layerViolations, type AppLayers } from './folder-layers.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

// One entry per app: its layer file (each exports `layers: AppLayers`).
const LAYER_FILES = ['./server-layers.ts', './web-layers.ts'];

const apps: AppLayers[] = await Promise.all(LAYER_FILES.map(async (f) => ((await import(f)) as { layers: AppLayers }).layers));

for (const spec of apps) {
  test(`${spec.app}: no folder circle, no upward or peer import`, () => {
    const graph = productImportGraph(root);
    const folders = folderGraph(spec.app, graph);
    // a reader that lost its way would find nothing to refuse
    assert.ok(folders.size >= 3, `read only ${folders.size} folders under ${spec.app}`);
    assert.ok([...folders.values()].some((to) => to.length > 0), `no folder under ${spec.app} imports another`);
    assert.deepEqual(layerViolations(spec, graph), []);
  });
}

const probe: AppLayers = { app: 'app', layers: [['base'], ['left', 'right'], ['.']] };
const graphOf = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
const base = { 'app/base/a.ts': [], 'app/left/l.ts': ['app/base/a.ts'], 'app/right/r.ts': ['app/base/a.ts', 'app/right/r2.ts'], 'app/right/r2.ts': [], 'app/main.ts': ['app/left/l.ts', 'app/right/r.ts'] };

test('the layer check passes an app that keeps its order (imports down, within a folder, from the root)', () => {
  assert.deepEqual(layerViolations(probe, graphOf(base)), []);
});

test('the layer check names the file and import of an upward import, a peer import and a root import', () => {
  const problems = layerViolations(probe, graphOf({ ...base, 'app/base/a.ts': ['app/left/l.ts'], 'app/left/l.ts': ['app/right/r.ts'], 'app/right/r2.ts': ['app/main.ts'] }));
  assert.ok(problems.includes('app/base/a.ts imports app/left/l.ts: upward, base (layer 0) may not import left (layer 1)'), problems.join('\n'));
  assert.ok(problems.includes('app/left/l.ts imports app/right/r.ts: left and right are peers in layer 1 and may not import each other'), problems.join('\n'));
  assert.ok(problems.includes('app/right/r2.ts imports app/main.ts: upward, right (layer 1) may not import . (layer 2)'), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('app: folder circle ')), problems.join('\n'));
});

test('the layer check refuses a folder missing from the layer file, one listed twice and one without files', () => {
  const problems = layerViolations({ app: 'app', layers: [['base', 'gone'], ['left', 'right', 'base'], ['.']] }, graphOf({ ...base, 'app/extra/x.ts': ['app/base/a.ts'] }));
  assert.deepEqual(problems.sort(), [
    'app: folder base is listed in layers 0 and 1',
    "app: folder extra is in no layer: add it to the app's layer file",
    'app: folder gone is listed in a layer but has no source file',
  ]);
});
