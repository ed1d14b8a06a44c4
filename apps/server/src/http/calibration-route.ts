/**
 * Live calibration (an InferScope extension): `GET /v2/models/{m}[/versions/{v}]/calibration[?kind=KIND_CPU]`
 * answers the cost model this server's own batches of that model version stand for, in the same JSON
 * format `inferscope calibrate` writes (source "live"), so `inferscope simulate --calibration FILE` and
 * the dashboard's teaching mode can use it in place of the shipped one. The figures come from core's
 * BatchLog fed by the event bus: the last 4096 successful batches per version and instance kind, fitted
 * by the same fitBatchRecords as the calibrate command. 409 while too few batches have run.
 * `GET /v2/calibration` lists every READY version's live calibration at once (always 200: the ones that
 * cannot be fitted yet are listed with the reason), which is what the dashboard asks for.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EventBus } from '@inferscope/core';
import { BatchLog, CalibrationError, type Calibration } from '@inferscope/core/sim';
import type { ModelManager } from '../models/model-manager';
import { modelParams } from './models';
import { errors, InferError } from '@inferscope/core';
import { resolveModel, type ServedModelView } from '../infer/resolve-model';
import { calibrationHost } from '../calibration/host';

type Params = { model: string; version?: string };
const KINDS = ['KIND_CPU', 'KIND_GPU', 'KIND_AUTO', 'KIND_MODEL'];

export function registerCalibrationRoutes(app: FastifyInstance, deps: { bus: Pick<EventBus, 'on'>; manager: ModelManager }): { close(): void; log: BatchLog } {
  const log = new BatchLog();
  const off = deps.bus.on((e) => {
    if (e.type === 'model.state' && (e.state === 'UNLOADING' || e.state === 'LOADING')) log.forget(e.model, e.version);
    else log.add(e);
  });
  const host = calibrationHost();

  const calibrationOf = (served: ServedModelView, kind?: string) => log.calibration({
    model: served.name, version: served.version, backend: served.config.backend ?? served.config.platform ?? '', kind, host,
    measured_at: new Date().toISOString(), instances: (served.config.instance_group ?? []).reduce((n, g) => n + (g.count ?? 1), 0),
  });

  const handler = async (req: FastifyRequest<{ Params: Params; Querystring: { kind?: string } }>) => {
    const { model, version } = modelParams(req);
    const served = resolveModel(deps.manager, model, version === undefined ? undefined : String(version));
    const kind = req.query.kind;
    if (kind !== undefined && !KINDS.includes(kind)) throw errors.INVALID(`kind must be one of ${KINDS.join(', ')}, got '${kind}'`);
    try {
      return calibrationOf(served, kind);
    } catch (err) {
      // nothing measured yet to fit: the calibration is not available (yet)
      if (err instanceof CalibrationError) throw new InferError('UNAVAILABLE', err.message);
      throw err;
    }
  };
  app.get('/v2/calibration', async () => {
    const calibrations: Calibration[] = [];
    const unavailable: { model: string; version: string; reason: string }[] = [];
    for (const m of deps.manager.list()) {
      if (m.state !== 'READY' || m.version === '') continue;
      const served = deps.manager.get(m.name, m.version);
      if (!served) continue;
      try {
        calibrations.push(calibrationOf(served));
      } catch (err) {
        if (!(err instanceof CalibrationError)) throw err;
        unavailable.push({ model: m.name, version: m.version, reason: err.message });
      }
    }
    return { calibrations, unavailable };
  });
  app.get<{ Params: Params; Querystring: { kind?: string } }>('/v2/models/:model/calibration', handler);
  app.get<{ Params: Params; Querystring: { kind?: string } }>('/v2/models/:model/versions/:version/calibration', handler);
  return { close: off, log };
}
