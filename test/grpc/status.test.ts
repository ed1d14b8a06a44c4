// The gRPC map of Triton's codes, one to one as grpc_utils.cc (server/src/grpc) maps them, and every
// code's round trip through its inverse; the expected statuses are written out here, not derived.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { ERROR_CODES, InferError, errors, type ErrorCode } from '@inferscope/core';
import { codeOfGrpcStatus, grpcError, grpcStatusOfCode } from '../../apps/server/src/grpc/status.ts';

const TRITON_GRPC: Record<ErrorCode, status> = {
  UNKNOWN: status.UNKNOWN,
  INTERNAL: status.INTERNAL,
  NOT_FOUND: status.NOT_FOUND,
  INVALID_ARG: status.INVALID_ARGUMENT,
  UNAVAILABLE: status.UNAVAILABLE,
  UNSUPPORTED: status.UNIMPLEMENTED,
  ALREADY_EXISTS: status.ALREADY_EXISTS,
  CANCELLED: status.CANCELLED,
};

for (const code of ERROR_CODES) {
  test(`${code} -> gRPC ${status[TRITON_GRPC[code]]}, and back`, () => {
    assert.equal(grpcStatusOfCode(code), TRITON_GRPC[code]);
    assert.equal(codeOfGrpcStatus(TRITON_GRPC[code]), code);
    assert.deepEqual(grpcError(new InferError(code, `said ${code}`)), { code: TRITON_GRPC[code], details: `said ${code}`, message: `said ${code}` });
  });
}

test('gRPC statuses that stand for no Triton code map back to none', () => {
  for (const s of [status.OK, status.DEADLINE_EXCEEDED, status.RESOURCE_EXHAUSTED, status.UNAUTHENTICATED]) assert.equal(codeOfGrpcStatus(s), undefined);
});

test('a transport-level HTTP status never leaks into gRPC: the code decides', () => {
  assert.equal(grpcError(errors.CLIENT_CANCELLED('gone')).code, status.CANCELLED);
  assert.equal(grpcError(errors.BODY_TOO_LARGE(2, 1)).code, status.INVALID_ARGUMENT);
  assert.equal(grpcError(new Error('a bug')).code, status.INTERNAL);
  assert.equal(grpcError(errors.UNKNOWN_MODEL('m')).code, status.NOT_FOUND);
});
