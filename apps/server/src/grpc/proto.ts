/**
 * Loads Triton's gRPC protocol (proto/grpc_service.proto + model_config.proto) with @grpc/proto-loader.
 * The server and the tests' client are built from these same files. Loader options, chosen once for
 * both: field names as in the .proto (snake_case, like Triton's JSON), 64-bit integers as strings
 * (exact for INT64/UINT64 tensors; shapes are converted to numbers where read), enums as names, absent
 * fields filled with their defaults (so "no raw_input_contents" is an empty list), oneofs named.
 */
import { fileURLToPath } from 'node:url';
import { loadSync, type Options } from '@grpc/proto-loader';
import { loadPackageDefinition, type GrpcObject, type ServiceClientConstructor, type ServiceDefinition } from '@grpc/grpc-js';

export const PROTO_DIR = fileURLToPath(new URL('./proto', import.meta.url));
export const PROTO_FILE = `${PROTO_DIR}/grpc_service.proto`;

export const LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

let cached: ServiceClientConstructor | undefined;

/** The `inference.GRPCInferenceService` constructor (its `.service` is the server-side definition). */
export function inferenceService(): ServiceClientConstructor {
  if (!cached) {
    const pkg = loadPackageDefinition(loadSync(PROTO_FILE, LOADER_OPTIONS)) as GrpcObject;
    cached = (pkg.inference as GrpcObject).GRPCInferenceService as ServiceClientConstructor;
  }
  return cached;
}

export function inferenceServiceDefinition(): ServiceDefinition {
  return inferenceService().service;
}
