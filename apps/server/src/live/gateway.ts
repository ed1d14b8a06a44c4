/**
 * The live gateway: Socket.IO on the HTTP server's port. Sends each client a snapshot on connect (and on
 * `resync`), coalesced event frames every ~40 ms, aggregates about once a second, and carries out
 * `control` messages from clients allowed to control.
 *
 * Uses `new Server(httpServer)` directly: fastify-socket.io does not work with fastify 5 (FINDINGS.md).
 */
import type { Server as HttpServer } from 'node:http';
import { Server, type Socket as IoSocket } from 'socket.io';
import { errors, WIRE } from '@inferscope/core';
import type { ClientToServerEvents, ControlAck, ServerToClientEvents, Snapshot, StatsMessage } from '@inferscope/core';

type Socket = IoSocket<ClientToServerEvents, ServerToClientEvents>;
import { FrameCoalescer } from './frame-coalescer';
import { validateControlMessage } from '@inferscope/core/live';
import { handleControl } from './control-handler';
import { controlRefusal as refused } from '@inferscope/core/live';
import { CONTROL_REFUSAL } from '../control/guard';
import { publicMessage } from '../infer/redact-paths';
import { FlowControl, backlogPackets as socketBacklog } from './flow-control';
import { StatsHistory } from './stats-history';
import { GenerationFeeds } from './generation-feeds';
import { AggregatorSet } from '@inferscope/core/stats';
import type { AggregateSource, LiveGatewayDeps } from '../control/types';

/** core's per-model aggregates (throughput, percentiles, queue depth, batch sizes) over a rolling window */
export function defaultAggregates(windowUs = 1_000_000): AggregateSource {
  const set = new AggregatorSet(windowUs);
  return { add: (e) => set.add(e), models: (now) => set.snapshot(now) };
}

export interface LiveGateway {
  io: Server;
  /** per-client resync rate and backlog bound (flow-control.ts) */
  flow: FlowControl;
  /** the latest stats message (also part of every snapshot) */
  lastStats(): StatsMessage | null;
  close(): Promise<void>;
}


export function attachLiveGateway(httpServer: HttpServer, deps: LiveGatewayDeps): LiveGateway {
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    // Control messages are limited to MAX_CONTROL_BYTES by validation (with a clear error); this bound only
    // protects the process from absurd payloads.
    maxHttpBufferSize: 1e6,
    serveClient: false,
  });
  const log = deps.log ?? (() => {});
  const coalescer = new FrameCoalescer(deps.coalescer);
  const stats = deps.stats ?? defaultAggregates();
  const controllers = new Set<string>();
  const flow = new FlowControl({ ...deps.flow, log });
  let lastStats: StatsMessage | null = null;
  const history = new StatsHistory(deps.history);

  let closed = false;
  const generation = new GenerationFeeds(deps.generation);
  const offBus = deps.bus.on((e) => {
    // an iterative model's step events (one per token) are folded here and sent as `generation` messages, not
    // frames; only while someone watches, as frames: a fold kept for nobody would promote its samples to the
    // old generation of the heap and cost the serving path (frame-coalescer.ts's push says how much)
    if (e.type === 'iterative') {
      if (coalescer.hasClients) generation.on(e);
      return;
    }
    coalescer.push(e);
    stats.add(e);
    if (e.type === 'config.changed') history.pushConfigChange(e);
  });

  function buildStats(): StatsMessage {
    // the tuner's status moves without a config change (met, holding, not met): it rides every stats message
    const autotune = deps.source.models().flatMap((m) => (m.autotune ? [{ model: m.name, version: m.version, ...m.autotune }] : []));
    return {
      ...(autotune.length > 0 ? { autotune } : {}),
      t: deps.source.now(),
      wall_ms: Date.now(),
      models: stats.models(deps.source.now()),
      load: deps.load?.progress(),
      event_loop: deps.eventLoop?.figures(),
      cpu: deps.cpu ? { utilization: deps.cpu() } : undefined,
      sweep: deps.sweep?.progress(),
      response_cache: deps.responseCache?.(),
      rate_limiter: deps.rateLimiter?.(),
    };
  }

  function buildSnapshot(canControl: boolean): Snapshot {
    return {
      server: { ...deps.source.serverInfo(), token_required: deps.guard.required, can_control: canControl },
      repositories: deps.source.repositories(),
      models: deps.source.models(),
      memory: deps.source.memory(),
      stats: lastStats,
      history: history.snapshot(),
      t: deps.source.now(),
      wall_ms: Date.now(),
    };
  }

  function sendSnapshot(socket: Socket): void {
    try {
      socket.emit(WIRE.snapshot, buildSnapshot(controllers.has(socket.id)));
    } catch (err) {
      log(`live: snapshot failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  io.on('connection', (socket) => {
    const auth = socket.handshake.auth as Record<string, unknown> | undefined;
    if (deps.guard.verdict(auth?.token) === 'allowed') controllers.add(socket.id);
    coalescer.addClient(socket.id);
    framesFollowClients();
    flow.sent(socket, () => sendSnapshot(socket));

    socket.on(WIRE.resync, () => flow.resync(socket, () => {
      sendSnapshot(socket);
      generation.outOfStep(socket.id);
    }));

    socket.on(WIRE.control, (raw: unknown, ack?: unknown) => {
      const reply = (a: ControlAck) => {
        // errors may quote what the client sent: capped like every HTTP error message
        if (typeof ack === 'function') ack(a.ok ? a : { ...a, error: publicMessage(a.error) });
      };
      const v = validateControlMessage(raw);
      const verdict = controllers.has(socket.id) ? 'allowed' : deps.guard.verdict(v.token);
      if (verdict !== 'allowed') {
        reply(refused(errors.CONTROL_REFUSED(`${CONTROL_REFUSAL[verdict]} (you are a viewer)`, verdict === 'missing' ? 401 : 403)));
        return;
      }
      if (!v.ok) {
        reply(refused(errors.INVALID(v.error)));
        return;
      }
      handleControl(v.value, `dashboard:${socket.id}`, deps.control, deps.load, deps.sweep, deps.limiter).then(reply, (err: unknown) =>
        reply(refused(err)),
      );
    });

    socket.on('disconnect', () => {
      controllers.delete(socket.id);
      coalescer.removeClient(socket.id);
      framesFollowClients();
      flow.forget(socket.id);
      generation.forget(socket.id);
    });
  });

  const sendFrames = () => {
    const sockets = io.of('/').sockets;
    coalescer.flush(
      deps.source.now(),
      (id) => {
        const s = sockets.get(id);
        return s ? socketBacklog(s) : 0;
      },
      (id, frame) => {
        const s = sockets.get(id);
        if (s && flow.check(s)) s.emit(WIRE.frame, frame);
      },
    );
  };
  // Frames tick only while a client is connected: with nobody to send to, nothing is buffered and a tick
  // would only wake the main thread (25 times a second, measurable on an idle server).
  let frameTimer: ReturnType<typeof setInterval> | undefined;
  let generationTimer: ReturnType<typeof setInterval> | undefined;
  const framesFollowClients = () => {
    if (coalescer.hasClients && !frameTimer && !closed) {
      frameTimer = setInterval(sendFrames, deps.frameIntervalMs ?? 40);
      frameTimer.unref?.();
      generationTimer = setInterval(sendGeneration, deps.generationIntervalMs ?? 250);
      generationTimer.unref?.();
    } else if (!coalescer.hasClients && frameTimer) {
      sendFrames(); // drops what was buffered for the clients that left: a later one starts from a snapshot
      clearInterval(frameTimer);
      clearInterval(generationTimer);
      frameTimer = undefined;
      generationTimer = undefined;
      generation.clear(); // what it held misses what happens next: a later client starts from its own connect
    }
  };
  // A few times a second, not per frame: a step's cells and the block map change per step, and the views
  // draw them at a readable pace; a client backed up past the frames' bound is skipped and later reset.
  const sendGeneration = () => {
    if (generation.empty) return;
    const sockets = io.of('/').sockets;
    try {
      generation.tick(
        deps.source.now(),
        () => deps.source.models(),
        sockets.keys(),
        (id) => {
          const s = sockets.get(id);
          return s !== undefined && flow.check(s) && socketBacklog(s) <= coalescer.options.maxBacklog;
        },
        (id, m) => sockets.get(id)?.emit(WIRE.generation, m),
      );
    } catch (err) {
      log(`live: generation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const statsTimer = setInterval(() => {
    try {
      lastStats = buildStats();
      history.push(lastStats);
      // Never sampled for a client that keeps up: aggregates are small and complete. A client whose socket
      // has stalled skips ticks instead of queueing them without bound; the next message it gets carries
      // the running totals, so nothing is lost from its picture but the stale intermediate seconds.
      for (const socket of io.of('/').sockets.values()) {
        if (flow.check(socket) && socketBacklog(socket) <= coalescer.options.maxBacklog) socket.emit(WIRE.stats, lastStats);
      }
    } catch (err) {
      log(`live: stats failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }, deps.statsIntervalMs ?? 1000);
  statsTimer.unref?.();

  return {
    io,
    flow,
    lastStats: () => lastStats,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(frameTimer);
      clearInterval(generationTimer);
      frameTimer = undefined;
      generationTimer = undefined;
      clearInterval(statsTimer);
      offBus();
      io.local.disconnectSockets(true);
      // io.close() would also close the HTTP server, which belongs to fastify: only close the engine.
      await new Promise<void>((resolve) => {
        io.engine.close();
        resolve();
      });
    },
  };
}
