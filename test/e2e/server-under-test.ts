/**
 * The real InferScope server for browser tests: buildApp on the demo model repository, listening on
 * 127.0.0.1 port 0, serving the built dashboard. Builds apps/web/dist first when it is missing.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { InferScopeApp } from '../../apps/server/src/app.ts';
import { startTestServer, ROOT } from '../support/server.ts';

export const WEB_DIST = join(ROOT, 'apps/web/dist');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const st = statSync(full);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(full) : st.mtimeMs);
  }
  return newest;
}

/**
 * Build the dashboard when dist is absent (CI clones without it) or older than its sources (so a test
 * never runs yesterday's page). Throws with vite's output on failure.
 */
export function ensureWebBuilt(): void {
  const index = join(WEB_DIST, 'index.html');
  // the bundle holds core too (the simulator, calibrations, schemas): a change there needs a rebuild as well
  const sources = Math.max(newestMtime(join(ROOT, 'apps/web/src')), newestMtime(join(ROOT, 'packages/core/src')));
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build'], { cwd: join(ROOT, 'apps/web'), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building apps/web failed:\n${r.stdout}\n${r.stderr}`);
}

export interface RunningServer {
  app: InferScopeApp;
  url: string;
  close(): Promise<void>;
}

export async function startServer(opts: { controlToken?: string } = {}): Promise<RunningServer> {
  ensureWebBuilt();
  const running = await startTestServer({ webDist: WEB_DIST, controlToken: opts.controlToken });
  return { app: running.built, url: running.url, close: () => running.close() };
}
