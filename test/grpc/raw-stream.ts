/**
 * A gRPC stream over a bare node:http2 client, for tests that need a client grpc-js will not be: one
 * that stops reading. A paused HTTP/2 stream does not hand its received bytes back to the flow-control
 * window, so once the window (64 KiB here) is full the server cannot send: what a client that never reads
 * its answers does to the server. Messages are framed as gRPC does (flag byte, 4-byte length, protobuf).
 */
import { connect, constants, type ClientHttp2Stream } from 'node:http2';
import { inferenceServiceDefinition } from '../../apps/server/src/grpc/proto';
import { grpcFrame } from '../../apps/server/src/grpc/direct-unary';

export interface RawGrpcStream {
  /** writes one request message */
  write(msg: object): void;
  /** ends the client's side */
  end(): void;
  /** starts reading: every message decoded; resolves once the server ended the stream */
  readAll(): Promise<unknown[]>;
  close(): void;
}

export function rawGrpcStream(address: string, method: string): RawGrpcStream {
  const def = inferenceServiceDefinition()[method];
  const session = connect(`http://${address}`, { settings: { initialWindowSize: 65_535 } });
  session.on('error', () => {});
  const stream: ClientHttp2Stream = session.request({
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: def.path,
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.on('error', () => {});
  stream.pause();
  return {
    write(msg) {
      stream.write(grpcFrame(def.requestSerialize(msg)));
    },
    end: () => stream.end(),
    readAll() {
      return new Promise((resolve, reject) => {
        const messages: unknown[] = [];
        let pending = Buffer.alloc(0);
        // chunks are joined once a whole message is there, not per chunk (a 1 MiB message is ~64 chunks)
        let parts: Buffer[] = [];
        let partBytes = 0;
        let need = 5; // bytes the next message needs: its 5-byte header, then header plus length
        stream.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          partBytes += chunk.length;
          if (pending.length + partBytes < need) return;
          pending = Buffer.concat([pending, ...parts]);
          parts = [];
          partBytes = 0;
          need = 5 + pending.readUInt32BE(1);
          if (pending.length < need) return;
          while (pending.length >= 5 && pending.length >= 5 + pending.readUInt32BE(1)) {
            const n = pending.readUInt32BE(1);
            messages.push(def.responseDeserialize(pending.subarray(5, 5 + n)));
            pending = pending.subarray(5 + n);
          }
          need = pending.length >= 5 ? 5 + pending.readUInt32BE(1) : 5;
        });
        stream.on('end', () => resolve(messages));
        stream.on('error', reject);
        stream.resume();
      });
    },
    close() {
      stream.destroy();
      session.destroy();
    },
  };
}
