/**
 * The real request path, assembled from its parts for tests and the serve benchmark: config engine ->
 * onnxruntime backend (worker-thread instances) -> core ModelScheduler on the real clock -> KServe
 * routes + stats routes on Fastify, listening on 127.0.0.1:0. Everything but the repository manager,
 * which this stand-in replaces with a fixed list of model folders (version 1 of each).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { EventBus, type InferPayload, type InferResult, type SchedulerRequest } from '@inferscope/core';
import { ModelScheduler, RealClock } from '@inferscope/core/scheduler/index.ts';
import { normalizeModelConfig, parseModelConfig, type ModelConfig } from '@inferscope/core/config/index.ts';
import { getBackend } from '../../apps/server/src/backends/registry';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import { registerInferRoutes } from '../../apps/server/src/kserve/routes';
import type { InferModelSource, ServedModelView } from '../../apps/server/src/kserve/resolve-model';
import { StatsCollector } from '../../apps/server/src/stats/collector';
import { registerStatsRoutes } from '../../apps/server/src/stats/routes';

export interface RealStack {
  url: string;
  bus: EventBus;
  manager: InferModelSource;
  stats: StatsCollector;
  infer(model: string, req: SchedulerRequest<InferPayload>): Promise<InferResult>;
  close(): Promise<void>;
}

export async function startRealStack(repository: string, models: string[]): Promise<RealStack> {
  const bus = new EventBus();
  const clock = new RealClock();
  const memory = new MemoryLedger({ bus });
  const served = new Map<string, { view: ServedModelView; scheduler: ModelScheduler<InferPayload, InferResult>; unload(): Promise<void> }>();
  for (const name of models) {
    const text = readFileSync(join(repository, name, 'config.pbtxt'), 'utf8');
    const config: ModelConfig = normalizeModelConfig(parseModelConfig(text), { modelName: name, gpuCount: 0 });
    const versionDir = join(repository, name, '1');
    const loaded = await getBackend(config).load({
      model: name, version: '1', versionDir, modelFile: join(versionDir, 'model.onnx'), config, gpuCount: 0,
      log: () => {}, memory,
    });
    const scheduler = new ModelScheduler<InferPayload, InferResult>({ model: name, version: '1', config, clock, bus, executor: loaded.executor });
    await scheduler.start();
    served.set(name, { view: { name, version: '1', state: 'READY', config }, scheduler, unload: () => loaded.unload() });
  }
  const manager: InferModelSource = {
    get: (name, version) => (version === undefined || version === '1' ? served.get(name)?.view : undefined),
    list: () => [...served.values()].map((s) => s.view),
    infer: (name, _version, req) => served.get(name)!.scheduler.enqueue(req),
  };
  const stats = new StatsCollector(bus, { models: () => manager.list!() });
  const app = Fastify();
  registerInferRoutes(app, manager);
  registerStatsRoutes(app, stats);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    bus,
    manager,
    stats,
    infer: (model, req) => manager.infer(model, '1', req),
    async close() {
      await app.close();
      for (const s of served.values()) {
        await s.scheduler.stop();
        await s.unload();
      }
      stats.close();
    },
  };
}
