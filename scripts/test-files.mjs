// The one rule for which files are tests: *.test.ts / *.test.tsx below the given folders of the repository,
// build output and dependencies left out. Both runners (run-tests.mjs, run-unit-tests.mjs) list through it.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const REPO_ROOT = new URL('..', import.meta.url).pathname;
const SKIP = new Set(['node_modules', 'dist', 'output', 'out']);

/** Test files below `roots` (paths relative to the repository), sorted; a folder that is absent adds none. */
export function testFiles(roots) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (SKIP.has(name)) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.test\.tsx?$/.test(name)) files.push(relative(REPO_ROOT, full));
    }
  };
  for (const r of roots) {
    try { walk(join(REPO_ROOT, r)); } catch { /* folder absent */ }
  }
  return files.sort();
}
