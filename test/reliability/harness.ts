/**
 * Starts a real InferScope server for reliability tests: ModelManager on a repository (the demo one, or a
 * temp copy), the KServe infer routes, the live gateway, listening on 127.0.0.1 port 0.
 *
 * Uses the app factory (apps/server/src/app.ts buildApp) when it exists; until then it wires the same
 * parts the way the factory does (real config engine, onnxruntime backend, core ModelScheduler on a
 * RealClock, shared EventBus), so the tests exercise production code either way.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { EventBus, type SchedulerEvent } from '@inferscope/core';
import { ModelScheduler, RealClock } from '@inferscope/core/scheduler/index.ts';
import { ModelManager } from '../../apps/server/src/models/model-manager.ts';
import type { ModelRuntime } from '../../apps/server/src/models/runtime.ts';
import { registerInferRoutes } from '../../apps/server/src/kserve/routes.ts';
import { getBackend } from '../../apps/server/src/backends/registry.ts';
import { autoCompleteConfig } from '../../apps/server/src/backends/onnxruntime/autocomplete.ts';
import { MemoryLedger } from '../../apps/server/src/memory/ledger.ts';
import { attachLiveGateway, type LiveGateway } from '../../apps/server/src/live/gateway.ts';
import { LoadController } from '../../apps/server/src/load/load-controller.ts';
import { InProcessTarget } from '../../apps/server/src/load/targets.ts';
import { realConfigEngine } from './config-engine.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const DEMO_REPO = join(ROOT, 'model_repository');

export interface StartOptions {
  repositories?: string[];
  controlMode?: 'none' | 'poll' | 'explicit';
  loadModels?: string[];
  token?: string;
  bodyLimit?: number;
  /** folder for load recordings / replay traces (a temp folder when absent) */
  recordingsDir?: string;
  /** log lines of the server (manager, gateway, fastify) are pushed here */
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
  events: SchedulerEvent[];
  close(): Promise<void>;
}

/** A temp repository holding copies of the named demo models (each may be edited by the test). */
export async function tempRepository(models: string[]): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'is-rel-'));
  for (const m of models) await cp(join(DEMO_REPO, m), join(dir, m), { recursive: true });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

function composeRuntime(bus: EventBus, clock: RealClock): ModelRuntime {
  const ledger = new MemoryLedger({ bus, now: () => clock.now() });
  return {
    config: realConfigEngine,
    backends: {
      async autoComplete(modelFile, config) {
        return autoCompleteConfig(modelFile, config).config;
      },
      async load(ctx) {
        return getBackend(ctx.config).load({ ...ctx, memory: ledger });
      },
    },
    createScheduler: (o) =>
      new ModelScheduler({ model: o.model, version: o.version, config: o.config, clock, bus: o.bus, executor: o.executor }) as never,
  };
}

export async function startServer(opts: StartOptions = {}): Promise<Running> {
  const logs = opts.logs;
  const bus = new EventBus();
  const events: SchedulerEvent[] = [];
  bus.on((e) => {
    if (events.length < 200_000) events.push(e);
  });
  const clock = new RealClock();
  const manager = new ModelManager({
    repositories: opts.repositories ?? [DEMO_REPO],
    controlMode: opts.controlMode ?? 'none',
    loadModels: opts.loadModels,
    gpuCount: 0,
    bus,
    runtime: composeRuntime(bus, clock),
    now: () => Math.round(clock.now()),
    log: (m) => logs?.push(m),
  });
  await manager.start();
  const app = Fastify({ logger: false });
  registerInferRoutes(app, manager as never, { bodyLimit: opts.bodyLimit });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const recordingsDir = opts.recordingsDir ?? (await mkdtemp(join(tmpdir(), 'is-rec-')));
  const load = new LoadController({ bus, recordingsDir, target: () => new InProcessTarget(manager as never) });
  const gateway = attachLiveGateway(app.server, {
    source: {
      serverInfo: () => ({ name: 'inferscope', version: 'test', extensions: [], model_control_mode: opts.controlMode ?? 'none', cpu_count: 2, gpu_count: 0 }),
      repositories: () => manager.repositories,
      models: () => manager.list(),
      memory: () => [],
      now: () => clock.now(),
    },
    control: manager as never,
    bus,
    stats: { add() {}, models: () => [] },
    load,
    token: opts.token,
    log: (m) => logs?.push(m),
  });
  const port = (app.server.address() as AddressInfo).port;
  return {
    app, manager, bus, gateway, load, recordingsDir, events, port, url: `http://127.0.0.1:${port}`,
    async close() {
      await load.close();
      await gateway.close();
      await app.close();
      await manager.close();
    },
  };
}

export const hasAppFactory = (): boolean => existsSync(join(ROOT, 'apps/server/src/app.ts'));

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
