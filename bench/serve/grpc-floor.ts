/**
 * The floor of InferScope's serving architecture over gRPC, without InferScope: a grpc-js server built as
 * the product's endpoint builds it (grpc/server.ts: same options, same TCP_NODELAY) answering ModelInfer by
 * copying raw_input_contents[0] into the same batching pump as the HTTP floor (architecture-floor.ts: up
 * to 16 queued samples per batch, one worker thread, with the model when `withModel` names it) and
 * answering a ModelInferResponse with the 10 floats in raw_output_contents. No resolution, validation,
 * scheduler, statistics or events: what any server made of grpc-js + one worker thread pays per request.
 * The other methods answer UNIMPLEMENTED.
 *
 * `startH2GrpcFloor`: the same, on bare node:http2 (no grpc-js call machinery: the request framed and
 * decoded with the service definition's serializers, one answer, trailers): what the product's unary path
 * (apps/server/src/grpc/direct-unary.ts) stands on, so the floor of the architecture as it now is.
 */
import { createServer, type ServerHttp2Stream } from 'node:http2';
import { ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { disableNagle, newGrpcServer } from '../../apps/server/src/grpc/server';
import { inferenceServiceDefinition } from '../../apps/server/src/grpc/proto';
import { grpcFrame } from '../../apps/server/src/grpc/direct-unary';
import { startFloorPump } from './architecture-floor';

interface InferMessage { model_name: string; raw_input_contents: Buffer[] }

interface GrpcFloor { address: string; formed(): { batches: number; requests: number }; close(): Promise<void> }

const answerOf = (model: string, bytes: Buffer) => ({
  model_name: model, model_version: '1', id: '', parameters: {},
  outputs: [{ name: 'probabilities', datatype: 'FP32', shape: ['1', '10'], parameters: {} }],
  raw_output_contents: [bytes],
});

/** one FP32 [1,784] sample from the message, or undefined when it is not one */
function sampleOf(msg: InferMessage): Float32Array | undefined {
  const raw = msg.raw_input_contents[0];
  if (raw === undefined || raw.byteLength !== 784 * 4) return undefined;
  const x = new Float32Array(784);
  new Uint8Array(x.buffer).set(raw);
  return x;
}

export async function startGrpcFloor(withModel?: string): Promise<GrpcFloor> {
  const floor = await startFloorPump(withModel);
  const service = inferenceServiceDefinition();
  const server = newGrpcServer(64 << 20);
  const handlers: UntypedServiceImplementation = {};
  for (const name of Object.keys(service)) {
    handlers[name] = (_call: unknown, callback: sendUnaryData<unknown>) => callback({ code: status.UNIMPLEMENTED, details: 'floor' });
  }
  handlers.ModelInfer = (call: ServerUnaryCall<InferMessage, unknown>, callback: sendUnaryData<unknown>) => {
    const x = sampleOf(call.request);
    if (x === undefined) {
      callback({ code: status.INVALID_ARGUMENT, details: 'the floor takes one FP32 [1,784] raw input' });
      return;
    }
    floor.submit(x, (bytes) => callback(null, answerOf(call.request.model_name, bytes)));
  };
  server.addService(service, handlers);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  disableNagle(server);
  return {
    address: `127.0.0.1:${port}`,
    formed: floor.formed,
    close: async () => {
      server.forceShutdown();
      await floor.close();
    },
  };
}

export async function startH2GrpcFloor(withModel?: string): Promise<GrpcFloor> {
  const floor = await startFloorPump(withModel);
  const method = inferenceServiceDefinition().ModelInfer;
  const server = createServer();
  const answer = (stream: ServerHttp2Stream, message: Buffer) => {
    const frame = grpcFrame(message);
    stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'grpc-message': 'OK' }));
    stream.end(frame);
  };
  server.on('stream', (stream) => {
    const chunks: Buffer[] = [];
    stream.on('error', () => {});
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const msg = method.requestDeserialize(body.subarray(5)) as InferMessage;
      const x = sampleOf(msg);
      if (x === undefined) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto', 'grpc-status': String(status.INVALID_ARGUMENT) }, { endStream: true });
        return;
      }
      floor.submit(x, (bytes) => answer(stream, method.responseSerialize(answerOf(msg.model_name, bytes))));
    });
  });
  server.on('connection', (socket: import('node:net').Socket) => socket.setNoDelay(true));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`,
    formed: floor.formed,
    close: async () => {
      server.close(); // stops listening; h2load has closed its connections by now
      await floor.close();
    },
  };
}
