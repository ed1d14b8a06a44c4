/**
 * Triton's model repository extension: POST /v2/repository/index and
 * POST /v2/repository/models/{m}/load|unload (explicit mode only; the manager refuses otherwise with
 * Triton's message and 503).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkModelName } from '@inferscope/core/repository/index.ts';
import type { ModelManager } from '../models/model-manager';
import { errors } from './errors';
import { objectBody } from './json-body';

type Params = { model: string };

export function registerRepositoryRoutes(app: FastifyInstance, manager: ModelManager): void {
  app.post('/v2/repository/index', async (req) => {
    const body = objectBody(req.body, 'repository index');
    const ready = body.ready ?? false;
    if (typeof ready !== 'boolean') throw errors.BAD_FIELD('ready', 'a boolean');
    await manager.refreshIndex();
    return manager.index(ready);
  });

  const control = (action: 'load' | 'unload') => async (req: FastifyRequest<{ Params: Params }>, reply: import('fastify').FastifyReply) => {
    const { model } = req.params;
    const bad = checkModelName(model);
    if (bad) throw errors.INVALID_MODEL_NAME(bad);
    const body = objectBody(req.body, `model ${action}`);
    if (body.parameters !== undefined && (typeof body.parameters !== 'object' || body.parameters === null || Array.isArray(body.parameters))) {
      throw errors.BAD_FIELD('parameters', 'a JSON object');
    }
    // Triton's load "config"/"file:" parameters override files on disk; InferScope loads from disk only.
    const params = (body.parameters ?? {}) as Record<string, unknown>;
    const unsupported = Object.keys(params).filter((k) => k === 'config' || k.startsWith('file:'));
    if (unsupported.length > 0) throw errors.BAD_FIELD(unsupported[0], 'no override: InferScope loads models from the repository on disk only');
    if (action === 'load') await manager.load(model);
    else await manager.unload(model);
    return reply.code(200).header('content-type', 'application/json').send();
  };
  app.post<{ Params: Params }>('/v2/repository/models/:model/load', control('load'));
  app.post<{ Params: Params }>('/v2/repository/models/:model/unload', control('unload'));
}
