/**
 * Triton's error codes -> gRPC status, one to one, as Triton's gRPC front end answers them
 * (server/src/grpc/grpc_utils.cc). Every gRPC error answer derives its status from the error's code here;
 * nothing is worked back out of an HTTP status.
 */
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import type { ErrorCode } from '@inferscope/core';
import { describeError } from '../infer/errors';

const GRPC_STATUS: Record<ErrorCode, Status> = {
  UNKNOWN: Status.UNKNOWN,
  INTERNAL: Status.INTERNAL,
  NOT_FOUND: Status.NOT_FOUND,
  INVALID_ARG: Status.INVALID_ARGUMENT,
  UNAVAILABLE: Status.UNAVAILABLE,
  UNSUPPORTED: Status.UNIMPLEMENTED,
  ALREADY_EXISTS: Status.ALREADY_EXISTS,
  CANCELLED: Status.CANCELLED,
};

export function grpcStatusOfCode(code: ErrorCode): Status {
  return GRPC_STATUS[code];
}

/** The Triton code a gRPC status stands for (the inverse of the map above), when it stands for one. */
export function codeOfGrpcStatus(status: Status): ErrorCode | undefined {
  return (Object.keys(GRPC_STATUS) as ErrorCode[]).find((c) => GRPC_STATUS[c] === status);
}

export function grpcError(err: unknown): Partial<ServiceError> {
  const { code, message } = describeError(err);
  return { code: GRPC_STATUS[code], details: message, message };
}
