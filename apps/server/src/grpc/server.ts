/**
 * The gRPC endpoint (Triton's --grpc-port, default 8001): a grpc-js server carrying
 * inference.GRPCInferenceService, on the same host as HTTP. Message size: requests up to `maxMessageBytes`
 * (the same limit as HTTP inference bodies; a bigger one is refused by grpc-js with RESOURCE_EXHAUSTED
 * before it is decoded), answers unlimited, as Triton's.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { http2ServersOf } from './http2-servers';
import { inferenceServiceDefinition } from './proto';
import { grpcHandlers, type GrpcServiceDeps } from './service';
import { guardControlMethods } from './control-methods';
import { answerUnaryDirectly } from './direct-unary';
import { MessageStallWatch } from './message-stall';
import { guardHttp2, type ConnectionTimeouts } from '../net/connection-timeouts';

export interface GrpcEndpoint {
  port: number;
  /** host:port, as grpc clients take it */
  address: string;
  /** whether the unary methods are answered directly (grpc/direct-unary.ts) rather than by grpc-js */
  unaryDirect: boolean;
  /** stop accepting, let calls in flight finish (they are answered: the schedulers still run) */
  close(): Promise<void>;
}

export interface GrpcEndpointOptions {
  host: string;
  /** 0 = any free port */
  port: number;
  maxMessageBytes: number;
  /** handshake and idle timeouts of its connections (net/connection-timeouts.ts) */
  timeouts: ConnectionTimeouts;
}

/** The grpc-js server as the endpoint configures it (also the transport of bench/serve/grpc-floor.ts). */
export function newGrpcServer(maxMessageBytes: number): Server {
  return new Server({
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': -1,
    // channelz (grpc-js's call and socket tracking for the channelz debug service, which this server does
    // not offer) costs a tracker update per call and per stream: ~2% of the server's CPU under load
    'grpc.enable_channelz': 0,
  });
}

export async function startGrpcEndpoint(deps: GrpcServiceDeps, options: GrpcEndpointOptions): Promise<GrpcEndpoint> {
  const server = newGrpcServer(options.maxMessageBytes);
  const definition = inferenceServiceDefinition();
  const handlers = guardControlMethods(grpcHandlers(deps), deps.control);
  server.addService(definition, handlers);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${options.port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  disableNagle(server);
  // the unary methods (ModelInfer above all) skip grpc-js's per-call machinery; streams stay with grpc-js
  guardConnections(server, options.timeouts);
  const limits = { maxReceiveBytes: options.maxMessageBytes, inflight: deps.inflight, stall: new MessageStallWatch(options.timeouts.idleMs) };
  const unaryDirect = answerUnaryDirectly(server, definition, handlers, limits) > 0;
  let closing: Promise<void> | undefined;
  return {
    port,
    address: `${host}:${port}`,
    unaryDirect,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // tryShutdown waits for calls in flight; a stuck client cannot hold shutdown for ever.
        const force = setTimeout(() => server.forceShutdown(), 10_000);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return closing;
    },
  };
}

/**
 * grpc-js's client sets TCP_NODELAY but its server does not, so a unary answer (HEADERS, DATA, trailers:
 * separate writes) waits on Nagle for the client's delayed ACK: measured here, tens of ms per call and a
 * fraction of HTTP's throughput. grpc-js offers no option for it; its http2 servers are reachable through
 * a private field, so each accepted socket gets setNoDelay. Without that field (another grpc-js version)
 * nothing happens and the endpoint is only slower.
 */
export function disableNagle(server: Server): void {
  for (const http2Server of http2ServersOf(server)) {
    http2Server.on('connection', (socket: import('node:net').Socket) => socket.setNoDelay(true));
  }
}

/**
 * Handshake and idle timeouts on each of grpc-js's HTTP/2 servers (net/connection-timeouts.ts). Not
 * grpc-js's grpc.max_connection_idle_ms: it counts only the streams grpc-js handles itself, so a session
 * busy with unary calls answered directly would count as idle. Without the private field (another grpc-js
 * version) the endpoint refuses to start rather than run without them.
 */
function guardConnections(server: Server, timeouts: ConnectionTimeouts): void {
  const servers = http2ServersOf(server);
  if (servers.length === 0) throw new Error('this grpc-js does not expose its HTTP/2 servers: cannot bound its connections (net/connection-timeouts.ts)');
  for (const http2Server of servers) guardHttp2(http2Server, timeouts);
}
