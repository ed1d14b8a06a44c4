/**
 * A real InferScope server for live/load integration tests: the app factory (buildApp) over a temp copy
 * of demo models, listening on 127.0.0.1 port 0, with a socket.io-client helper and a log of every event.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import type { SchedulerEvent } from '@inferscope/core';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app.ts';
import type { LiveParts } from '../../apps/server/src/live/register.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

export interface RealServer extends LiveParts {
  server: InferScopeApp;
  manager: InferScopeApp['manager'];
  bus: InferScopeApp['bus'];
  url: string;
  recordingsDir: string;
  events: SchedulerEvent[];
  connect(auth?: Record<string, unknown>): Promise<Socket>;
  close(): Promise<void>;
}

export async function startRealServer(opts: { models?: string[]; token?: string } = {}): Promise<RealServer> {
  const repo = await mkdtemp(join(tmpdir(), 'is-live-repo-'));
  for (const m of opts.models ?? ['mlp_classifier']) await cp(join(ROOT, 'model_repository', m), join(repo, m), { recursive: true });
  const recordingsDir = await mkdtemp(join(tmpdir(), 'is-live-rec-'));
  const server = await buildApp({
    modelRepositories: [repo],
    host: '127.0.0.1',
    httpPort: 0,
    metricsPort: null,
    controlToken: opts.token,
    recordingsDir,
  });
  const events: SchedulerEvent[] = [];
  server.bus.on((e) => {
    if (events.length < 500_000) events.push(e);
  });
  const { url } = await server.listen();
  const sockets: Socket[] = [];
  return {
    ...server.live!,
    server,
    manager: server.manager,
    bus: server.bus,
    url,
    recordingsDir,
    events,
    async connect(auth) {
      const s = connect(url, { transports: ['websocket'], auth, reconnection: false });
      sockets.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('connect', () => resolve());
        s.once('connect_error', reject);
      });
      return s;
    },
    async close() {
      for (const s of sockets) s.close();
      await server.close();
      await rm(repo, { recursive: true, force: true });
      await rm(recordingsDir, { recursive: true, force: true });
    },
  };
}
