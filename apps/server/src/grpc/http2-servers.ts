import type { Server } from '@grpc/grpc-js';
import type { Http2Server } from 'node:http2';

/**
 * grpc-js's listening HTTP/2 servers, through a private field ([] when it is not there: another grpc-js
 * version). grpc-js offers no hook on its connections or streams; what this server adds to them (direct
 * unary calls, TCP_NODELAY, connection timeouts, stream admission) goes through here.
 */
export function http2ServersOf(server: Server): Http2Server[] {
  const servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
  return servers instanceof Map ? [...servers.keys()] : [];
}
