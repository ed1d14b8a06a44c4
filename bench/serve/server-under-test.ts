/**
 * The server the serve benchmark drives: the production factory (buildApp: ModelManager, KServe routes,
 * stats, metrics, live gateway) on 127.0.0.1:0, plus an in-process entry point (ModelManager.infer) that
 * skips HTTP but keeps everything else.
 */
import type { EventBus, InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import { buildApp } from '../../apps/server/src/app';
import type { TorchStubChoice } from '../../apps/server/src/backends/pytorch/native-stub';

export interface ServerUnderTest {
  url: string;
  bus: EventBus;
  infer(model: string, req: SchedulerRequest<InferPayload>): Promise<InferResult>;
  close(): Promise<void>;
}

/** `live` false leaves out the dashboard's Socket.IO gateway (default: the server as shipped, with it). */
export async function startInferScope(repository: string, live = true, torchStub?: TorchStubChoice): Promise<ServerUnderTest> {
  const server = await buildApp({ modelRepositories: [repository], httpPort: 0, metricsPort: null, host: '127.0.0.1', live, torchStub });
  const { url } = await server.listen();
  for (const m of server.manager.list()) {
    if (m.state !== 'READY') throw new Error(`model ${m.name} v${m.version} is ${m.state}: ${m.reason ?? ''}`);
  }
  return {
    url,
    bus: server.bus,
    infer: (model, req) => server.manager.infer(model, undefined, req),
    close: () => server.close(),
  };
}
