/**
 * Triton's repository load / unload, shared by HTTP (http/repository.ts) and gRPC (grpc/service.ts):
 * the request's parameters (already plain values: JSON, or ModelRepositoryParameter oneofs) are checked
 * once here. Triton's answers: unloading a model that is not loaded succeeds and changes nothing
 * (qa/L0_lifecycle: "Unload non-existing model, nothing should happen").
 */
import type { ModelManager } from '../models/model-manager';
import { invalid } from './errors';

export type LoadParameters = Record<string, unknown>;

export async function loadModel(manager: Pick<ModelManager, 'load'>, name: string, params: LoadParameters): Promise<void> {
  const unsupported = Object.keys(params).filter((k) => k === 'config' || k.startsWith('file:'));
  if (unsupported.length > 0) {
    throw invalid(`Unable to parse '${unsupported[0]}': no override: InferScope loads models from the repository on disk only`);
  }
  await manager.load(name);
}

export async function unloadModel(manager: Pick<ModelManager, 'unload'>, name: string): Promise<void> {
  await manager.unload(name);
}
