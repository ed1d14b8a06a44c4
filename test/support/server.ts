/**
 * The one way tests start a real InferScope server: buildApp (the production factory) listening on
 * 127.0.0.1 port 0, no metrics port, recordings in a temp folder, every bus event kept for assertions.
 * The suite helpers (test/live/real-server.ts, test/reliability/harness.ts, test/e2e/server-under-test.ts)
 * add only what their tests need on top of it.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SchedulerEvent } from '@inferscope/core';
import { buildApp, type AppOptions, type InferScopeApp } from '../../apps/server/src/app.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const DEMO_REPO = join(ROOT, 'model_repository');

/** A temp repository holding copies of the named demo models (each may be edited by the test). */
export async function tempRepository(models: string[], prefix = 'is-repo-'): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  for (const m of models) await cp(join(DEMO_REPO, m), join(dir, m), { recursive: true });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export type TestServerOptions = Partial<AppOptions> & {
  /** most events kept in `events` (a long soak must not grow without bound); default 200k */
  eventCap?: number;
};

export interface TestServer {
  built: InferScopeApp;
  url: string;
  port: number;
  /** host:port of the gRPC endpoint, when started with grpcPort (0 = any free port) */
  grpcAddress?: string;
  /** the /metrics URL, when started with metricsPort (0 = any free port) */
  metricsUrl?: string;
  recordingsDir: string;
  /** every event on the bus since start, up to eventCap */
  events: SchedulerEvent[];
  /** closes the server (draining), then removes the recordings folder when it was made here */
  close(): Promise<void>;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const { eventCap = 200_000, ...app } = opts;
  const ownRecordings = app.recordingsDir === undefined;
  const recordingsDir = app.recordingsDir ?? (await mkdtemp(join(tmpdir(), 'is-rec-')));
  const built = await buildApp({
    host: '127.0.0.1',
    httpPort: 0,
    metricsPort: null,
    ...app,
    modelRepositories: app.modelRepositories ?? [DEMO_REPO],
    recordingsDir,
  });
  const events: SchedulerEvent[] = [];
  built.bus.on((e) => {
    if (events.length < eventCap) events.push(e);
  });
  try {
    const { url, grpcAddress, metricsUrl } = await built.listen();
    return {
      built,
      url,
      grpcAddress,
      metricsUrl,
      port: Number(new URL(url).port),
      recordingsDir,
      events,
      async close() {
        await built.close();
        if (ownRecordings) await rm(recordingsDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    // A server that cannot listen still loaded models (workers): unload them so the test process can exit.
    await built.close().catch(() => {});
    if (ownRecordings) await rm(recordingsDir, { recursive: true, force: true });
    throw err;
  }
}
