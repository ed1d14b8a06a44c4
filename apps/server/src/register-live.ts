/**
 * Wires the live gateway and the load generator into a Fastify app: one call from the app factory.
 * Socket.IO shares the HTTP port; on close, sockets are disconnected and running loads stopped (their
 * sent requests still answered) before the server stops.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { DeviceMemory, EventBus, ModelSnapshot, ServerInfo } from '@inferscope/core';
import { attachLiveGateway, type LiveGateway } from './live/gateway';
import type { ControlTarget } from './control/types';
import type { ControlGuard } from './control/guard';
import { LoadController } from './loadgen/load-controller';
import { InProcessTarget, type InProcessManager } from './loadgen/targets';
import { CpuMetrics } from './metrics/system-metrics';
import { SweepController } from './clients/analyze/server-sweep';

/** The ModelManager as the live side uses it. */
export type LiveManager = ControlTarget &
  InProcessManager & {
    list(): ModelSnapshot[];
    readonly repositories: string[];
  };

export interface RegisterLiveOptions {
  manager: LiveManager;
  bus: EventBus;
  /** per-device memory (the MemoryLedger) */
  memory?: { snapshot(): DeviceMemory[] };
  serverInfo: () => Omit<ServerInfo, 'token_required' | 'can_control'>;
  /** who may control (the server's one guard, shared with HTTP and gRPC) */
  guard: ControlGuard;
  /** folder for recordings and replayed traces */
  recordingsDir: string;
  /** the scheduler clock, µs (default performance.now, the RealClock's origin) */
  now?: () => number;
  log?: (msg: string) => void;
  frameIntervalMs?: number;
  statsIntervalMs?: number;
  /** what one load run may ask for (default: core's DEFAULT_LOAD_LIMITS) */
  loadLimits?: import('@inferscope/core/load').LoadLimits;
  /** the server's event-loop delay, shown with the stats */
  eventLoop?: { figures(): import('@inferscope/core').EventLoopFigures | undefined };
  responseCache?: () => import('@inferscope/core').ResponseCacheFigures;
  limiter?: import('@inferscope/core/rate-limiter').RateLimiter;
  rateLimiter?: () => import('@inferscope/core').RateLimiterSnapshot | undefined;
}

export interface LiveParts {
  gateway: LiveGateway;
  load: LoadController;
}

export function registerLive(app: FastifyInstance, o: RegisterLiveOptions): LiveParts {
  const now = o.now ?? (() => performance.now() * 1000);
  let inProcess: InProcessTarget | undefined;
  // The generator is a client of the server's own HTTP endpoint, so the server must be listening by now.
  const url = (): string => {
    const addr = app.server.address() as AddressInfo | null;
    if (!addr || typeof addr === 'string') throw new Error('the server is not listening on TCP yet; HTTP load needs it');
    const host = addr.family === 'IPv6' ? `[${addr.address === '::' ? '::1' : addr.address}]` : addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address;
    return `http://${host}:${addr.port}`;
  };
  // A recording's header names the version it met and that version's tuning fields, live at the start.
  const describeModel = (model: string, version?: string) => {
    const served = o.manager.get(model, version)?.version; // the manager's rule for an unnamed version
    const m = o.manager.list().find((x) => x.name === model && x.version === served);
    return m ? { version: m.version, config: { max_batch_size: m.config.max_batch_size, dynamic_batching: m.config.dynamic_batching, instance_group: m.config.instance_group } } : undefined;
  };
  const load = new LoadController({ bus: o.bus, recordingsDir: o.recordingsDir, url, limits: o.loadLimits, describeModel, inProcessTarget: () => (inProcess ??= new InProcessTarget(o.manager)) });
  const sweep = new SweepController({
    control: o.manager, models: () => o.manager.list(), memory: () => o.memory?.snapshot() ?? [], url, log: o.log,
  });
  // Its own reader: CpuMetrics measures between successive reads, and /metrics scrapes read theirs.
  const cpu = new CpuMetrics();
  const gateway = attachLiveGateway(app.server, {
    source: {
      serverInfo: o.serverInfo,
      repositories: () => o.manager.repositories,
      models: () => o.manager.list(),
      memory: () => o.memory?.snapshot() ?? [],
      now,
    },
    control: o.manager,
    bus: o.bus,
    load,
    eventLoop: o.eventLoop,
    cpu: () => cpu.utilization(),
    responseCache: o.responseCache,
    rateLimiter: o.rateLimiter,
    limiter: o.limiter,
    sweep,
    guard: o.guard,
    log: o.log,
    frameIntervalMs: o.frameIntervalMs,
    statsIntervalMs: o.statsIntervalMs,
  });
  app.addHook('preClose', async () => {
    gateway.io.local.disconnectSockets(true);
    await Promise.all([load.close(), sweep.close()]);
  });
  app.addHook('onClose', async () => {
    await gateway.close();
    inProcess?.close();
  });
  return { gateway, load };
}
