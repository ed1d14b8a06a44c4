/**
 * The floor of InferScope's serving architecture over gRPC, without InferScope: a grpc-js server built as
 * the product's endpoint builds it (grpc/server.ts: same options, same TCP_NODELAY) answering ModelInfer by
 * copying raw_input_contents[0] into the same batching pump as the HTTP floor (architecture-floor.ts: up
 * to 16 queued samples per batch, one worker thread, with the model when `withModel` names it) and
 * answering a ModelInferResponse with the 10 floats in raw_output_contents. No resolution, validation,
 * scheduler, statistics or events: what any server made of grpc-js + one worker thread pays per request.
 * The other methods answer UNIMPLEMENTED.
 */
import { ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { disableNagle, newGrpcServer } from '../../apps/server/src/grpc/server';
import { inferenceServiceDefinition } from '../../apps/server/src/grpc/proto';
import { startFloorPump } from './architecture-floor';

interface InferMessage { model_name: string; raw_input_contents: Buffer[] }

export async function startGrpcFloor(withModel?: string): Promise<{ address: string; formed(): { batches: number; requests: number }; close(): Promise<void> }> {
  const floor = await startFloorPump(withModel);
  const service = inferenceServiceDefinition();
  const server = newGrpcServer(64 << 20);
  const handlers: UntypedServiceImplementation = {};
  for (const name of Object.keys(service)) {
    handlers[name] = (_call: unknown, callback: sendUnaryData<unknown>) => callback({ code: status.UNIMPLEMENTED, details: 'floor' });
  }
  handlers.ModelInfer = (call: ServerUnaryCall<InferMessage, unknown>, callback: sendUnaryData<unknown>) => {
    const raw = call.request.raw_input_contents[0];
    if (raw === undefined || raw.byteLength !== 784 * 4) {
      callback({ code: status.INVALID_ARGUMENT, details: 'the floor takes one FP32 [1,784] raw input' });
      return;
    }
    const x = new Float32Array(784);
    new Uint8Array(x.buffer).set(raw);
    floor.submit(x, (bytes) => callback(null, {
      model_name: call.request.model_name, model_version: '1', id: '', parameters: {},
      outputs: [{ name: 'probabilities', datatype: 'FP32', shape: ['1', '10'], parameters: {} }],
      raw_output_contents: [bytes],
    }));
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
