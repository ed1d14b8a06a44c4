/**
 * Errors -> gRPC status, as Triton's grpc_utils maps TRITONSERVER_Error codes: INVALID_ARG ->
 * INVALID_ARGUMENT, NOT_FOUND -> NOT_FOUND, UNAVAILABLE -> UNAVAILABLE, UNSUPPORTED -> UNIMPLEMENTED,
 * INTERNAL -> INTERNAL, ALREADY_EXISTS -> ALREADY_EXISTS, CANCELLED -> CANCELLED, UNKNOWN -> UNKNOWN.
 * Our errors carry Triton's code (ManagerError) or the HTTP status Triton derives from it (KServeError,
 * SchedulerError): the latter is mapped back the way http_server.cc maps forward.
 */
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { describeError } from '../kserve/errors';

const BY_TRITON_CODE: Record<string, Status> = {
  INVALID_ARG: Status.INVALID_ARGUMENT,
  NOT_FOUND: Status.NOT_FOUND,
  UNAVAILABLE: Status.UNAVAILABLE,
  UNSUPPORTED: Status.UNIMPLEMENTED,
  INTERNAL: Status.INTERNAL,
  ALREADY_EXISTS: Status.ALREADY_EXISTS,
  UNKNOWN: Status.UNKNOWN,
};

function byHttpStatus(http: number): Status {
  switch (http) {
    case 400: return Status.INVALID_ARGUMENT;
    case 404: return Status.NOT_FOUND;
    case 413: return Status.RESOURCE_EXHAUSTED;
    case 499: return Status.CANCELLED;
    case 501: return Status.UNIMPLEMENTED;
    case 503: return Status.UNAVAILABLE;
    default: return http >= 500 ? Status.INTERNAL : Status.INVALID_ARGUMENT;
  }
}

export function grpcError(err: unknown): Partial<ServiceError> {
  const { status, message } = describeError(err);
  const tritonCode = (err as { code?: unknown } | null)?.code;
  const code = typeof tritonCode === 'string' && tritonCode in BY_TRITON_CODE ? BY_TRITON_CODE[tritonCode] : byHttpStatus(status);
  return { code, details: message, message };
}
