/**
 * Triton's model repository extension: POST /v2/repository/index and
 * POST /v2/repository/models/{m}/load|unload (explicit mode only; the manager refuses otherwise with
 * Triton's message and 503).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkModelName } from '@inferscope/core/repository';
import type { ModelManager } from '../models/model-manager';
import { errors } from '@inferscope/core';
import { installJsonParser, objectBody } from './json-body';
import type { BodyLimits } from './body-reader';
import { loadModel, unloadModel } from '../kserve/repository-control';
import type { PrivateFolders } from '../repository/private-folders';

type Params = { model: string };

export interface RepositoryRoutesOptions {
  /** the server's private folders for loads with `file:` contents */
  folders: PrivateFolders;
  /** largest load request body: `file:` contents carry whole model files (default: the app's limit) */
  loadBodyLimit?: number;
  /** the app's body limits: the index routes read their bodies with their own JSON parser (below) */
  bodyLimits: BodyLimits;
}

export function registerRepositoryRoutes(app: FastifyInstance, manager: ModelManager, options: RepositoryRoutesOptions): void {
  const index = async (req: FastifyRequest) => {
    const body = objectBody(req.body, 'repository index');
    const ready = body.ready ?? false;
    if (typeof ready !== 'boolean') throw errors.INVALID("Invalid value for 'ready': expected a boolean");
    await manager.refreshIndex();
    return manager.index(ready);
  };
  // The index reads one top-level field by its type and walks nothing, so its body is parsed without the
  // nesting bound: a deeply nested 'ready' gets Triton's answer about 'ready', not the nesting refusal.
  void app.register(async (scope) => {
    installJsonParser(scope, { ...options.bodyLimits, depthLimit: false });
    scope.post('/v2/repository/index', index);
    // Triton's repository-scoped URLs: the index of a named repository answers as the index (one merged
    // view, as Triton), while loading or unloading "from" a named repository is refused as Triton does.
    scope.post('/v2/repository/:repository/index', index);
  });
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
    else await unloadModel(manager, options.folders, model, params);
    return reply.code(200).header('content-type', 'application/json').send();
  };
  app.post<{ Params: Params }>('/v2/repository/models/:model/load', options.loadBodyLimit ? { bodyLimit: options.loadBodyLimit } : {}, control('load'));
  app.post<{ Params: Params }>('/v2/repository/models/:model/unload', control('unload'));
}
