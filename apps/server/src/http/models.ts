/**
 * Per-model read-only routes: metadata, readiness, configuration. Messages and codes follow Triton's
 * http_server.cc: unknown model/version -> 404 "Request for unknown model: ...", a known version that is
 * not READY -> 503; readiness answers the same lookup (see `ready` below).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkModelName, parseRequestedVersion } from '@inferscope/core/repository';
import { modelConfigToJson } from '@inferscope/core/config';
import { modelMetadata } from '../kserve/model-metadata';
import type { ModelManager } from '../models/model-manager';
import { errors } from '@inferscope/core';
import { resolveModel } from '../infer/resolve-model';

type Params = { model: string; version?: string };

/** Validates the URL's model name and version; path tricks are refused before any lookup. */
export function modelParams(req: FastifyRequest<{ Params: Params }>): { model: string; version?: number } {
  const { model, version } = req.params;
  const bad = checkModelName(model);
  if (bad) throw errors.INVALID_MODEL_NAME(bad);
  const v = parseRequestedVersion(version);
  if (v.error) throw errors.INVALID_VERSION(v.error);
  return { model, version: v.version };
}

export function registerModelRoutes(app: FastifyInstance, manager: ModelManager): void {
  const metadata = async (req: FastifyRequest<{ Params: Params }>) => {
    const { model, version } = modelParams(req);
    const served = manager.require(model, version);
    // Triton lists the READY versions for the model, or just the one asked for.
    return modelMetadata(model, version === undefined ? served.readyVersions : [served.version], served.config);
  };
  app.get<{ Params: Params }>('/v2/models/:model', metadata);
  app.get<{ Params: Params }>('/v2/models/:model/versions/:version', metadata);

  // Triton (TRITONSERVER_ServerModelIsReady) looks the model up first, so readiness of an unknown model
  // or version answers that lookup's error (404 unknown / no available version, 503 version not READY)
  // with "Request for unknown model: ..."; a READY version answers 200 with an empty body.
  const ready = async (req: FastifyRequest<{ Params: Params }>, reply: import('fastify').FastifyReply) => {
    const { model, version } = modelParams(req);
    resolveModel(manager, model, version === undefined ? undefined : String(version));
    return reply.code(200).send();
  };
  app.get<{ Params: Params }>('/v2/models/:model/ready', ready);
  app.get<{ Params: Params }>('/v2/models/:model/versions/:version/ready', ready);

  const config = async (req: FastifyRequest<{ Params: Params }>) => {
    const { model, version } = modelParams(req);
    return modelConfigToJson(manager.require(model, version).config);
  };
  app.get<{ Params: Params }>('/v2/models/:model/config', config);
  app.get<{ Params: Params }>('/v2/models/:model/versions/:version/config', config);
}
