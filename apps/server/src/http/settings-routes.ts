/**
 * Triton's trace and logging extensions over HTTP: `GET|POST /v2/trace/setting`,
 * `GET|POST /v2/models/{m}/trace/setting` and `GET|POST /v2/logging`, answering with Triton's JSON.
 * POSTs change server state, so they go through the same control-token rule as the other
 * state-changing routes.
 */
import type { FastifyInstance } from 'fastify';
import { checkModelName } from '@inferscope/core/repository';
import { errors } from '@inferscope/core';
import { parseTraceUpdate, toWire, type TraceSettings } from '../trace/trace-settings';
import type { Tracer } from '../trace/tracer';
import type { ServerLogger } from '../logging/server-logger';

export interface SettingsDeps {
  trace: TraceSettings;
  tracer: Tracer;
  logger: ServerLogger;
  /** whether the repository knows the model (trace settings of an unknown model are refused) */
  knows(model: string): boolean;
}

export function registerSettingsRoutes(app: FastifyInstance, d: SettingsDeps): void {
  const model = (name: string) => {
    const bad = checkModelName(name);
    if (bad) throw errors.INVALID_MODEL_NAME(bad);
    if (!d.knows(name)) throw errors.UNKNOWN_MODEL(name);
    return name;
  };
  const update = (body: unknown, m?: string) => {
    // a bad setting throws TraceSettingError, an InferError: the error handler answers it
    const before = d.trace.get(m).trace_level[0];
    const after = d.trace.update(parseTraceUpdate(body ?? {}), m);
    // Tracing switched off: what was collected is written now rather than at shutdown.
    if (before !== 'OFF' && after.trace_level[0] === 'OFF') void d.tracer.flush();
    // trace_file is set at start only: without one, tracing switched on here has nowhere to write
    if (before === 'OFF' && after.trace_level[0] !== 'OFF' && !d.trace.get().trace_file) {
      d.logger.warn('trace: tracing switched on without a trace file (--trace-config triton,file=PATH): traces are not kept');
    }
    return toWire(after);
  };
  app.get('/v2/trace/setting', async () => toWire(d.trace.get()));
  app.post('/v2/trace/setting', async (req) => update(req.body));
  app.get<{ Params: { model: string } }>('/v2/models/:model/trace/setting', async (req) => toWire(d.trace.get(model(req.params.model))));
  app.post<{ Params: { model: string } }>('/v2/models/:model/trace/setting', async (req) => update(req.body, model(req.params.model)));

  app.get('/v2/logging', async () => d.logger.settings());
  app.post('/v2/logging', async (req) => d.logger.update(req.body ?? {}));
}
