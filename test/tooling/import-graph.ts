// The product's module graph, read from the sources with TypeScript's parser: every static import and
// re-export (type-only ones too: a type circle is still two files that cannot be understood apart), with
// `@inferscope/core/<area>` resolved through core's package exports. Used by the import-circle test.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const PRODUCT_ROOTS = ['packages/core/src', 'apps/server/src', 'apps/web/src'];
const EXTENSIONS = ['.ts', '.tsx'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (EXTENSIONS.some((e) => name.endsWith(e)) && !/\.(test|d)\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

function asFile(base: string): string | undefined {
  if (EXTENSIONS.some((e) => base.endsWith(e)) && existsSync(base)) return base;
  for (const e of EXTENSIONS) if (existsSync(base + e)) return base + e;
  for (const e of EXTENSIONS) if (existsSync(join(base, `index${e}`))) return join(base, `index${e}`);
  return undefined;
}

function coreExports(root: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')) as { exports: Record<string, string> };
  return pkg.exports;
}

function resolveSpecifier(root: string, from: string, spec: string, exportsMap: Record<string, string>): string | undefined {
  if (spec.startsWith('.')) return asFile(resolve(dirname(from), spec));
  if (!spec.startsWith('@inferscope/core')) return undefined;
  const sub = `.${spec.slice('@inferscope/core'.length)}` || '.';
  const target = exportsMap[sub === '.' ? '.' : sub] ?? (exportsMap['./*'] ? exportsMap['./*'].replace('*', sub.slice(2)) : undefined);
  return target ? asFile(join(root, 'packages/core', target)) : undefined;
}

function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specs: string[] = [];
  for (const node of source.statements) {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specs.push(node.moduleSpecifier.text);
    }
  }
  return specs;
}

/** file (relative to root) -> the product files it imports */
export function productImportGraph(root: string): Map<string, string[]> {
  const exportsMap = coreExports(root);
  const graph = new Map<string, string[]>();
  for (const dir of PRODUCT_ROOTS) {
    for (const file of sourceFiles(join(root, dir))) {
      const targets = importsOf(file)
        .map((spec) => resolveSpecifier(root, file, spec, exportsMap))
        .filter((t): t is string => t !== undefined)
        .map((t) => relative(root, t));
      graph.set(relative(root, file), [...new Set(targets)]);
    }
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): the circles. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, order.get(next)!));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return circles;
}
