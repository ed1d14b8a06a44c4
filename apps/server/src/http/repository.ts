/**
 * Triton's model repository extension: POST /v2/repository/index and
 * POST /v2/repository/models/{m}/load|unload (explicit mode only; the manager refuses otherwise with
 * Triton's message and 503).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkModelName } from '@inferscope/core/repository';
import type { ModelManager } from '../models/model-manager';
import { errors } from '@inferscope/core';
import { objectBody } from './json-body';
import { INFER_BODY_LIMIT_FLAG, type BodyLimitConfig } from './errors';
import { loadModel, unloadModel } from '../kserve/repository-control';
import type { PrivateFolders } from '../repository/private-folders';

type Params = { model: string };

export interface RepositoryRoutesOptions {
  /** the server's private folders for loads with `file:` contents */
  folders: PrivateFolders;
  /**
   * largest load request body: `file:` contents carry whole model files (default: the app's limit). The
   * app gives it --http-max-input-size's limit, so a refusal names that flag.
   */
  loadBodyLimit?: number;
}

export function registerRepositoryRoutes(app: FastifyInstance, manager: ModelManager, options: RepositoryRoutesOptions): void {
  const index = async (req: FastifyRequest) => {
    const body = objectBody(req.body, 'repository index');
    const ready = body.ready ?? false;
    if (typeof ready !== 'boolean') throw errors.BAD_FIELD('ready', 'a boolean');
    await manager.refreshIndex();
    return manager.index(ready);
  };
  app.post('/v2/repository/index', index);
  // Triton's repository-scoped URLs: the index of a named repository answers as the index (one merged
  // view, as Triton), while loading or unloading "from" a named repository is refused as Triton does.
  app.post('/v2/repository/:repository/index', index);
  const scoped = async () => {
    throw errors.REPOSITORY_NAME_UNSUPPORTED();
  };
  app.post('/v2/repository/:repository/models/:model/load', scoped);
  app.post('/v2/repository/:repository/models/:model/unload', scoped);

  const control = (action: 'load' | 'unload') => async (req: FastifyRequest<{ Params: Params }>, reply: import('fastify').FastifyReply) => {
    const { model } = req.params;
    const bad = checkModelName(model);
    if (bad) throw errors.INVALID_MODEL_NAME(bad);
    const body = objectBody(req.body, `model ${action}`);
    if (body.parameters !== undefined && (typeof body.parameters !== 'object' || body.parameters === null || Array.isArray(body.parameters))) {
      throw errors.BAD_FIELD('parameters', 'a JSON object');
    }
    // Triton's load parameters ("config", "file:<path>") are read by the shared repository control.
    const params = (body.parameters ?? {}) as Record<string, unknown>;
    if (action === 'load') await loadModel(manager, options.folders, model, params);
    else await unloadModel(manager, options.folders, model);
    return reply.code(200).header('content-type', 'application/json').send();
  };
  const loadLimit = options.loadBodyLimit ? { bodyLimit: options.loadBodyLimit, config: { bodyLimitFlag: INFER_BODY_LIMIT_FLAG } satisfies BodyLimitConfig } : {};
  app.post<{ Params: Params }>('/v2/repository/models/:model/load', loadLimit, control('load'));
  app.post<{ Params: Params }>('/v2/repository/models/:model/unload', control('unload'));
}
