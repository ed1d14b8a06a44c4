/**
 * `GET /v2/models/stats`, `/v2/models/{m}/stats` and `/v2/models/{m}/versions/{v}/stats`
 * (Triton's statistics extension): `{"model_stats": [...]}` or `{"error": "..."}`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeError } from '../infer/errors';
import type { StatsCollector } from '../stats/collector';

type Params = { model?: string; version?: string };

/**
 * The tuner's status of a version, when one runs or ran. An entry of an autotuned version carries it as
 * `autotune` (target, on/off, last reason), a field Triton's clients ignore: the statistics say it is tuned.
 */
export type AutotuneLookup = (model: string, version: string) => object | undefined;

export function registerStatsRoutes(app: FastifyInstance, stats: Pick<StatsCollector, 'modelStats'>, autotune?: AutotuneLookup): void {
  const handler = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    try {
      const entries = stats.modelStats(request.params.model, request.params.version);
      return {
        model_stats: entries.map((e) => {
          const tuned = autotune?.(e.name, e.version);
          return tuned ? { ...e, autotune: tuned } : e;
        }),
      };
    } catch (err) {
      const { status, message } = describeError(err);
      return reply.code(status).send({ error: message });
    }
  };
  app.get<{ Params: Params }>('/v2/models/stats', handler);
  app.get<{ Params: Params }>('/v2/models/:model/stats', handler);
  app.get<{ Params: Params }>('/v2/models/:model/versions/:version/stats', handler);
}
