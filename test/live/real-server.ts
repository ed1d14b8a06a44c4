/**
 * A real InferScope server for live/load integration tests (test/support/server.ts) over a temp copy
 * of demo models, with a socket.io-client helper and a log of every event.
 */
import type { Socket } from 'socket.io-client';
import { connectSocket } from '../support/socket.ts';
import type { SchedulerEvent } from '@inferscope/core';
import type { InferScopeApp } from '../../apps/server/src/app.ts';
import type { LiveParts } from '../../apps/server/src/register-live.ts';
import { startTestServer, tempRepository } from '../support/server.ts';

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
  const repo = await tempRepository(opts.models ?? ['mlp_classifier'], 'is-live-repo-');
  const running = await startTestServer({ modelRepositories: [repo.dir], controlToken: opts.token, eventCap: 500_000 });
  const server = running.built;
  const sockets: Socket[] = [];
  return {
    ...server.live!,
    server,
    manager: server.manager,
    bus: server.bus,
    url: running.url,
    recordingsDir: running.recordingsDir,
    events: running.events,
    async connect(auth) {
      const s = await connectSocket(running.url, auth);
      sockets.push(s);
      return s;
    },
    async close() {
      for (const s of sockets) s.close();
      await running.close();
      await repo.remove();
    },
  };
}
