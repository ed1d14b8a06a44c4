/**
 * The server the serve benchmark drives: the real request path (KServe routes -> scheduler -> onnxruntime
 * worker instances) on 127.0.0.1:0, plus an in-process entry point that skips HTTP.
 */
import type { EventBus, InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import { startRealStack } from '../../kserve/real-stack';

export interface ServerUnderTest {
  url: string;
  bus: EventBus;
  infer(model: string, req: SchedulerRequest<InferPayload>): Promise<InferResult>;
  close(): Promise<void>;
}

export async function startInferScope(repository: string): Promise<ServerUnderTest> {
  return startRealStack(repository, ['mlp_nobatch', 'mlp_batched']);
}
