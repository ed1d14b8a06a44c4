/**
 * Starts a real InferScope server for reliability tests: buildApp (the production factory: ModelManager,
 * KServe routes, stats, live gateway, load generator) on a repository (the demo one, or a temp copy),
 * listening on 127.0.0.1 port 0, no metrics port (test/support/server.ts), with the parts these tests use.
 */
import type { FastifyInstance } from 'fastify';
import type { EventBus, SchedulerEvent } from '@inferscope/core';
import type { ModelManager } from '../../apps/server/src/models/model-manager.ts';
import type { LiveGateway } from '../../apps/server/src/live/gateway.ts';
import type { LoadController } from '../../apps/server/src/loadgen/load-controller.ts';
import { startTestServer, tempRepository as copyDemoModels, ROOT, DEMO_REPO } from '../support/server.ts';

export { ROOT, DEMO_REPO };

export interface StartOptions {
  repositories?: string[];
  controlMode?: 'none' | 'poll' | 'explicit';
  loadModels?: string[];
  token?: string;
  /** largest inference body (--http-max-input-size) */
  bodyLimit?: number;
  /** folder for load recordings / replay traces (a temp folder when absent) */
  recordingsDir?: string;
  /** fastify request logging (to stdout) */
  logRequests?: boolean;
  /** log lines of the server are pushed here */
  logs?: string[];
}

export interface Running {
  app: FastifyInstance;
  manager: ModelManager;
  bus: EventBus;
  gateway: LiveGateway;
  load: LoadController;
  recordingsDir: string;
  url: string;
  port: number;
  /** every event on the bus since start (capped at 200k) */
  events: SchedulerEvent[];
  close(): Promise<void>;
}

/** A temp repository holding copies of the named demo models (each may be edited by the test). */
export function tempRepository(models: string[]): Promise<{ dir: string; remove(): Promise<void> }> {
  return copyDemoModels(models, 'is-rel-');
}

export async function startServer(opts: StartOptions = {}): Promise<Running> {
  const running = await startTestServer({
    modelRepositories: opts.repositories ?? [DEMO_REPO],
    modelControlMode: opts.controlMode ?? 'none',
    loadModels: opts.loadModels,
    repositoryPollSecs: 0,
    controlToken: opts.token,
    gpuCount: 0,
    inferBodyLimit: opts.bodyLimit,
    recordingsDir: opts.recordingsDir,
    logRequests: opts.logRequests ?? false,
    log: (m) => opts.logs?.push(m),
  });
  const built = running.built;
  if (!built.live) {
    await running.close();
    throw new Error('buildApp did not attach the live gateway');
  }
  return {
    app: built.app,
    manager: built.manager,
    bus: built.bus,
    gateway: built.live.gateway,
    load: built.live.load,
    recordingsDir: running.recordingsDir,
    events: running.events,
    port: running.port,
    url: running.url,
    close: () => running.close(),
  };
}

/** Forces a full GC (exposed on demand) and returns heap/RSS in bytes. */
export async function measureMemory(): Promise<{ heapUsed: number; rss: number }> {
  const v8 = await import('node:v8');
  const vm = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}

export const MiB = 1024 * 1024;
