// The folder order of an app, checked against the product's import graph (import-graph.ts). An app
// declares its layers once (web-layers.ts, ...): an ordered list, lowest first, each a list of folders
// directly under the app's source root ('.' = the files in the root itself: the composition root, so
// it belongs on top). A folder may import only folders of lower layers; folders of one layer are peers
// and may not import each other, so each layer can be read, tested and changed without the ones above.
import { importCircles } from './import-graph.ts';

export interface AppLayers {
  /** the app's source root, relative to the repository root, e.g. 'apps/web/src' */
  app: string;
  /** lowest layer first; every folder with a source file under `app` appears in exactly one layer */
  layers: string[][];
}

/** The folder a file belongs to: the first folder under the app's root, or '.' for a file in the root. */
export function folderOf(app: string, file: string): string | undefined {
  if (!file.startsWith(`${app}/`)) return undefined;
  const rest = file.slice(app.length + 1);
  const slash = rest.indexOf('/');
  return slash < 0 ? '.' : rest.slice(0, slash);
}

/** Folder -> the folders it imports (files of one folder importing each other are not an edge). */
export function folderGraph(app: string, graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(app, file);
    if (from === undefined) continue;
    const to = folders.get(from) ?? new Set<string>();
    folders.set(from, to);
    for (const target of targets) {
      const folder = folderOf(app, target);
      if (folder !== undefined && folder !== from) to.add(folder);
    }
  }
  return new Map([...folders].map(([f, to]) => [f, [...to].sort()]));
}

/**
 * Everything wrong with an app's folders against its declared layers, one line each, naming the file and
 * what it imports: a folder missing from the layer file or listed twice or listed without files, an
 * upward or peer import, and any folder circle. Empty when the app keeps its order.
 */
export function layerViolations(spec: AppLayers, graph: Map<string, string[]>): string[] {
  const { app, layers } = spec;
  const problems: string[] = [];
  const layerOf = new Map<string, number>();
  layers.forEach((layer, i) => {
    for (const folder of layer) {
      if (layerOf.has(folder)) problems.push(`${app}: folder ${folder} is listed in layers ${layerOf.get(folder)} and ${i}`);
      else layerOf.set(folder, i);
    }
  });
  const folders = folderGraph(app, graph);
  for (const folder of [...folders.keys()].sort()) {
    if (!layerOf.has(folder)) problems.push(`${app}: folder ${folder} is in no layer: add it to the app's layer file`);
  }
  for (const folder of layerOf.keys()) {
    if (!folders.has(folder)) problems.push(`${app}: folder ${folder} is listed in a layer but has no source file`);
  }
  for (const [file, targets] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const from = folderOf(app, file);
    if (from === undefined || !layerOf.has(from)) continue;
    for (const target of targets) {
      const to = folderOf(app, target);
      if (to === undefined || to === from || !layerOf.has(to)) continue;
      const [a, b] = [layerOf.get(from)!, layerOf.get(to)!];
      if (a < b) problems.push(`${file} imports ${target}: upward, ${from} (layer ${a}) may not import ${to} (layer ${b})`);
      else if (a === b) problems.push(`${file} imports ${target}: ${from} and ${to} are peers in layer ${a} and may not import each other`);
    }
  }
  for (const circle of importCircles(folders)) problems.push(`${app}: folder circle ${circle.join(' <-> ')}`);
  return problems;
}
