/**
 * Server metadata and health, as KServe v2 / Triton answer them: GET /v2 (name, version, extensions),
 * /v2/health/live and /v2/health/ready (200 with an empty body, 400 when not live/ready).
 */
import type { FastifyInstance } from 'fastify';
import type { ModelManager } from '../models/model-manager';

export const SERVER_NAME = 'inferscope';

/** KServe/Triton protocol extensions this server implements (the rest of Triton's list is not claimed). */
export const EXTENSIONS = [
  'model_repository',
  // the optional part: unload takes `unload_dependents` (kserve/repository-control.ts)
  'model_repository(unload_dependents)',
  'schedule_policy',
  'model_configuration',
  'binary_tensor_data',
  'parameters',
  'statistics',
  'classification',
  // stateful models: sequence_id / sequence_start / sequence_end (core's scheduler/sequence)
  'sequence',
  'trace',
  'logging',
  'system_shared_memory',
  'generate',
] as const;

export interface HealthState {
  version: string;
  /** the server's readiness (server-readiness.ts): live stays true until the process exits */
  ready(): boolean;
}

export function registerHealthRoutes(app: FastifyInstance, manager: ModelManager, state: HealthState): void {
  const metadata = async () => ({ name: SERVER_NAME, version: state.version, extensions: [...EXTENSIONS] });
  app.get('/v2', metadata);
  app.get('/v2/', metadata); // Triton's server-metadata route takes the trailing slash too
  app.get('/v2/health/live', async (_req, reply) => reply.code(200).send());
  app.get('/v2/health/ready', async (_req, reply) => reply.code(state.ready() ? 200 : 400).send());
}
