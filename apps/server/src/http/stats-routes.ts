/**
 * `GET /v2/models/stats`, `/v2/models/{m}/stats` and `/v2/models/{m}/versions/{v}/stats`
 * (Triton's statistics extension): `{"model_stats": [...]}` or `{"error": "..."}`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeError } from './errors';
import type { StatsCollector } from '../stats/collector';

type Params = { model?: string; version?: string };

export function registerStatsRoutes(app: FastifyInstance, stats: Pick<StatsCollector, 'modelStats'>): void {
  const handler = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    try {
      return { model_stats: stats.modelStats(request.params.model, request.params.version) };
    } catch (err) {
      const { status, message } = describeError(err);
      return reply.code(status).send({ error: message });
    }
  };
  app.get<{ Params: Params }>('/v2/models/stats', handler);
  app.get<{ Params: Params }>('/v2/models/:model/stats', handler);
  app.get<{ Params: Params }>('/v2/models/:model/versions/:version/stats', handler);
}
