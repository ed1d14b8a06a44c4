/**
 * The app factory: builds the whole server (event bus, memory ledger, model manager, HTTP routes,
 * statistics, metrics, live gateway) without listening, so tests drive it with app.inject() and the serve
 * command adds listen(). Models are loaded (per the control mode) before buildApp resolves.
 */
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { ProtocolTaggingBus } from './infer/protocol-bus';
import { ModelManager } from './models/model-manager';
import { defaultRuntime } from './models/default-runtime';
import type { ModelRuntime } from './models/runtime';
import { MemoryLedger } from './memory/ledger';
import { InferenceCache, ResponseCache } from '@inferscope/core/response-cache';
import { RateLimiter } from '@inferscope/core/rate-limiter';
import { cacheFamilies } from './metrics/cache-metrics';
import { cacheFigures, type InferResult } from '@inferscope/core';
import { gpuCount as detectGpus } from './memory/gpu';
import { OptionsError, validateServerOptions, type ServerOptions } from './server-options';
import { installErrorHandlers } from './http/errors';
import { registerServerPath } from './infer/redact-paths';
import { installJsonParser } from './http/json-body';
import { installDeclaredLimit } from './http/body-reader';
import { installControlAuth } from './http/control-auth';
import { InflightBytes } from './infer/inflight-bytes';
import { installBodyCharges } from './http/inflight-hooks';
import { registerHealthRoutes, EXTENSIONS, SERVER_NAME } from './http/health';
import { serverReadiness } from './http/server-readiness';
import { registerModelRoutes } from './http/models';
import { registerRepositoryRoutes } from './http/repository';
import { PrivateFolders, removeStaleFolders } from './repository/private-folders';
import { registerStaticRoutes } from './http/static';
import { registerInferRoutes } from './http/kserve-routes';
import { StatsCollector } from './stats/index';
import { registerStatsRoutes } from './http/stats-routes';
import { createMetrics, startMetricsServer, type Metrics, type MetricsServer } from './metrics/index';
import { registerLive, type LiveParts } from './register-live';
import { EventLoopDelay } from './metrics/event-loop';
import { applyServingHeapFlags } from './memory/heap-tuning';
import { ControlGuard } from './control/guard';
import { startGrpcEndpoint, type GrpcEndpoint } from './grpc/server';
import { checkBindSecurity } from './control/security';
import { ServerLogger } from './logging/server-logger';
import { TraceSettings, parseTraceConfig } from './trace/trace-settings';
import { Tracer, TRACE_LIMITS } from './trace/tracer';
import { isDecoupled } from './infer/response-stream';
import { registerSettingsRoutes } from './http/settings-routes';
import { registerCalibrationRoutes } from './http/calibration-route';
import { registerShmRoutes } from './http/shm-routes';
import { SystemSharedMemory } from './shm/system-shm';
import { ServerCalls } from './backends/stub/server-calls';
import { guardHttp1, type ConnectionTimeouts } from './net/connection-timeouts';

export const SERVER_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export type AppOptions = Partial<ServerOptions> & {
  modelRepositories: string[];
  /** replaces the real config engine/backends/scheduler (tests) */
  runtime?: ModelRuntime;
  /** attach the Socket.IO gateway and load generator (default true) */
  live?: boolean;
  log?: (msg: string) => void;
};

export interface InferScopeApp {
  app: FastifyInstance;
  manager: ModelManager;
  logger: ServerLogger;
  tracer: Tracer;
  shm: SystemSharedMemory;
  bus: ProtocolTaggingBus;
  memory: MemoryLedger;
  stats: StatsCollector;
  metrics: Metrics;
  /** --max-inflight-bytes: what every protocol's requests hold now */
  inflight: InflightBytes;
  live?: LiveParts;
  options: ServerOptions;
  /** listens on options.host:httpPort (and the metrics and gRPC ports unless null); returns the addresses */
  listen(): Promise<{ url: string; metricsUrl?: string; grpcAddress?: string }>;
  /** graceful: stop accepting, answer what was accepted (drain), unload models, close servers */
  close(): Promise<void>;
}

export async function buildApp(input: AppOptions): Promise<InferScopeApp> {
  const options = validateServerOptions(input);
  applyServingHeapFlags();
  // Every server line goes through the logger, so /v2/logging switches and formats all of them.
  const logger = new ServerLogger(input.log ?? (() => {}), { log_file: options.logFile ?? '', log_format: options.logFormat });
  const log = logger.info;
  const gpuCount = options.gpuCount ?? detectGpus();
  const bus = new ProtocolTaggingBus();
  const now = () => Math.round(performance.now() * 1000);
  const memory = new MemoryLedger({ budgets: options.memoryBudget, bus, now });
  // what models may ask of the server while they run (BLS calls, custom metrics); bound to the manager below
  const calls = new ServerCalls(bus, now);
  // A stub's frame (a batch's outputs, a BLS request, a decoupled response) is bounded by
  // --max-inflight-bytes: what the server lets all requests hold at once bounds what one frame may bring in.
  // one response cache and one rate limiter for every model, as Triton's server holds them
  const cache = options.responseCache ? new InferenceCache(new ResponseCache<InferResult>(options.responseCache.size, { now }), now, bus, logger.error) : undefined;
  if (cache) {
    // the buffer may fill to its size: the budget counts all of it from the start, as Triton allocates it
    try {
      memory.reserve({ device: 'cpu', model: 'response_cache', version: '', instance: 'response_cache' }, cache.cache.capacity, 'modelled');
    } catch (err) {
      throw new OptionsError(`--cache-config local,size=${cache.cache.capacity} does not fit --memory-budget: ${(err as Error).message}`);
    }
    log(`Response Cache is created with size ${cache.cache.capacity}`);
  }
  const rateLimiter = new RateLimiter(options.rateLimit, options.rateLimitResources);
  const runtime = input.runtime ?? defaultRuntime({
    memory, log, python: options.python, torchStub: options.torchStub, calls, maxStubFrameBytes: options.maxInflightBytes, rateLimiter, responseCache: cache !== undefined,
  });
  const manager = new ModelManager({
    repositories: options.modelRepositories,
    controlMode: options.modelControlMode,
    loadModels: options.loadModels,
    pollSecs: options.modelControlMode === 'poll' ? options.repositoryPollSecs : 0,
    gpuCount,
    bus,
    runtime,
    now,
    log,
    responseCache: cache,
  });
  calls.attach(manager);

  // pluginTimeout: our plugins are synchronous route scopes, but on a busy 2-core machine avvio's default
  // 10 s can expire while the models load next to it; a minute still catches a plugin that never resolves.
  // maxParamLength: model names may be 255 characters (percent-encoded UTF-8 up to 12 bytes each);
  // fastify's default of 100 answered 414 to valid names.
  const timeouts: ConnectionTimeouts = { handshakeMs: options.handshakeTimeoutSecs * 1000, idleMs: options.idleTimeoutSecs * 1000 };
  const app = Fastify({ logger: options.logRequests, bodyLimit: options.bodyLimit, forceCloseConnections: 'idle', pluginTimeout: 60_000, routerOptions: { maxParamLength: 4096 } });
  let accepting = true;
  // While shutting down, every response closes its connection, so keep-alive clients do not hold the
  // server open until their idle timeout.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (!accepting) reply.header('connection', 'close');
    done(null, payload);
  });
  installErrorHandlers(app);
  // where the models live is the server's business: error messages name them '<repository>/...'
  for (const repo of options.modelRepositories) registerServerPath(repo, '<repository>');
  // --max-inflight-bytes: every request body is charged before it is read (infer routes in their scope)
  const inflight = new InflightBytes(options.maxInflightBytes);
  installBodyCharges(app, inflight);
  // the control routes' own limit; the load route (file: contents) and inference take --http-max-input-size
  const bodyLimits = { limit: options.bodyLimit, inputSizeLimit: options.inferBodyLimit };
  installDeclaredLimit(app, bodyLimits);
  installJsonParser(app, bodyLimits);
  // One guard for every protocol (HTTP routes, gRPC methods, live control messages).
  const control = new ControlGuard(options.controlToken);
  // before any route: every state-changing route registered after this needs the token (when set)
  installControlAuth(app, control);
  const ready = serverReadiness(manager, () => accepting, options.strictReadiness);
  registerHealthRoutes(app, manager, { version: SERVER_VERSION, ready });
  registerModelRoutes(app, manager);
  // Load folders of servers that died without closing (SIGKILL, crash); a live server's are kept.
  const stale = await removeStaleFolders();
  if (stale.length > 0) log(`removed ${stale.length} load folder(s) left by stopped servers: ${stale.join(', ')}`);
  const loadFolders = new PrivateFolders();
  registerRepositoryRoutes(app, manager, { loadBodyLimit: options.inferBodyLimit, folders: loadFolders, bodyLimits });
  // Statistics and metric series exist for loaded (READY) versions only, as in Triton.
  const servedVersions = () => manager.list().filter((m) => m.version !== '' && m.state === 'READY');
  const stats = new StatsCollector(bus, { models: servedVersions });
  registerStatsRoutes(app, stats, (model, version) => manager.autotune.status(model, version));
  const calibration = registerCalibrationRoutes(app, { bus, manager });
  const shm = new SystemSharedMemory();
  registerInferRoutes(app, manager, { bodyLimit: options.inferBodyLimit, events: { bus, now }, inflight, shm, memory });
  const traceSettings = new TraceSettings(parseTraceConfig(options.traceConfig));
  const decoupled = (model: string, version: string): boolean => {
    try {
      return isDecoupled(calls.manager.require(model, version).config);
    } catch {
      return false;
    }
  };
  const tracer = new Tracer(bus, traceSettings, logger.warn, TRACE_LIMITS, decoupled);
  registerSettingsRoutes(app, { trace: traceSettings, tracer, logger, knows: (m) => manager.index().some((r) => r.name === m) });
  registerShmRoutes(app, shm);
  registerStaticRoutes(app, options.webDist);
  const eventLoop = new EventLoopDelay();
  const cacheEnabled = (model: string, version: string): boolean => {
    try {
      return calls.manager.require(model, version).config.response_cache?.enable === true;
    } catch {
      return false;
    }
  };
  const cacheCollector = cache ? [() => cacheFamilies(stats, () => cache.cache.stats(), cacheEnabled)] : [];
  const metrics = createMetrics(bus, { stats, memory: memory.snapshot(), collectors: [() => eventLoop.families(), () => calls.metrics.exposed(), ...cacheCollector] });

  const start = { start_id: randomUUID(), started_wall_ms: Date.now() };
  const serverInfo = () => ({
    ...start,
    name: SERVER_NAME,
    version: SERVER_VERSION,
    extensions: [...EXTENSIONS],
    model_control_mode: options.modelControlMode,
    cpu_count: cpus().length,
    gpu_count: gpuCount,
  });
  const live = input.live === false
    ? undefined
    : registerLive(app, { manager, bus, memory, serverInfo, guard: control, recordingsDir: options.recordingsDir, now, log, eventLoop, loadLimits: options.loadLimits,
      responseCache: cache ? () => cacheFigures(cache.cache.stats()) : undefined,
      rateLimiter: () => (rateLimiter.mode === 'off' ? undefined : rateLimiter.snapshot()), limiter: rateLimiter });

  // The HTTP port's listener, Socket.IO's too (it shares it): connections that never send are closed. After
  // registerLive: engine.io re-wraps the 'request' listeners it finds, and would hide its own requests from
  // one added before it.
  guardHttp1(app.server, timeouts);

  // Routes first, then models: the app is complete before the (slow) model loads start.
  await app.ready();
  await manager.start();

  let metricsServer: MetricsServer | undefined;
  let grpc: GrpcEndpoint | undefined;
  let closing: Promise<void> | undefined;
  return {
    app, manager, bus, memory, stats, metrics, inflight, live, options, logger, tracer, shm,
    async listen() {
      checkBindSecurity(options.host, options.controlToken, options.allowOpenControl);
      await app.listen({ host: options.host, port: options.httpPort });
      const addr = app.server.address() as AddressInfo;
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      if (options.metricsPort !== null) {
        metricsServer = await startMetricsServer({ port: options.metricsPort, host: options.host, metrics, timeouts });
      }
      if (options.grpcPort !== null) {
        grpc = await startGrpcEndpoint(
          { manager, loadFolders, stats, events: { bus, now }, shm, memory, ready, control, inflight, serverInfo: () => ({ name: SERVER_NAME, version: SERVER_VERSION, extensions: [...EXTENSIONS] }) },
          { host: options.host, port: options.grpcPort, maxMessageBytes: options.inferBodyLimit, timeouts },
        );
        if (!grpc.unaryDirect) log('note: this grpc-js is not laid out as grpc/direct-unary.ts expects; grpc-js answers every gRPC call (slower)');
      }
      return { url: `http://${host}:${addr.port}`, metricsUrl: metricsServer?.url, grpcAddress: grpc?.address };
    },
    close() {
      closing ??= (async () => {
        accepting = false;
        // app.close stops new connections and waits for in-flight HTTP requests: the schedulers are still
        // running, so each is answered (with `connection: close`, see onSend). Then the models drain and
        // unload.
        await Promise.all([app.close(), grpc?.close()]);
        await manager.close();
        await loadFolders.removeAll();
        await tracer.close();
        shm.close();
        await metricsServer?.close();
        metrics.close();
        eventLoop.close();
        stats.close();
        calibration.close();
      })();
      return closing;
    },
  };
}
