// Each of Triton's eight error codes, given by a python model's pb_utils.TritonError, reaches the client
// with Triton's status on both protocols and with the model's message: HTTP as Triton's HttpCodeFromError
// (server/src/http_server.cc) answers it, gRPC one to one as grpc_utils.cc maps it. The real server (HTTP and
// gRPC on port 0); the model picks the code from the request's first input value (numpy only).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { startTestServer, type TestServer } from '../support/server.ts';
import { grpcClient, type TestGrpcClient } from '../grpc/client.ts';
import { NO_NUMPY, addSubConfig, inferJson, tempRepo, type TempRepo } from './stub-fixtures.ts';

/** Triton's code names in pb_utils.TritonError's numeric order, with the statuses Triton answers them with. */
const CASES: { name: string; http: number; grpc: GrpcStatus }[] = [
  { name: 'UNKNOWN', http: 400, grpc: GrpcStatus.UNKNOWN },
  { name: 'INTERNAL', http: 500, grpc: GrpcStatus.INTERNAL },
  { name: 'NOT_FOUND', http: 404, grpc: GrpcStatus.NOT_FOUND },
  { name: 'INVALID_ARG', http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  { name: 'UNAVAILABLE', http: 503, grpc: GrpcStatus.UNAVAILABLE },
  { name: 'UNSUPPORTED', http: 501, grpc: GrpcStatus.UNIMPLEMENTED },
  { name: 'ALREADY_EXISTS', http: 400, grpc: GrpcStatus.ALREADY_EXISTS },
  { name: 'CANCELLED', http: 400, grpc: GrpcStatus.CANCELLED },
];
const OK = 100; // any value that names no code: the model answers normally

/** Answers the request whose INPUT0[0, 0] is a code's name's index with TritonError(message, that code). */
const CODES_PY = `
import numpy as np
import triton_python_backend_utils as pb_utils

NAMES = ${JSON.stringify(CASES.map((c) => c.name))}


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            in_0 = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            in_1 = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            v = int(in_0[0, 0])
            if 0 <= v < len(NAMES):
                code = getattr(pb_utils.TritonError, NAMES[v])
                err = pb_utils.TritonError("model refuses with %s (code %d)" % (NAMES[v], code), code)
                responses.append(pb_utils.InferenceResponse(output_tensors=[], error=err))
                continue
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", in_0 + in_1), pb_utils.Tensor("OUTPUT1", in_0 - in_1)]))
        return responses
`;

let repo: TempRepo;
let server: TestServer;
let grpc: TestGrpcClient;

before(async () => {
  if (NO_NUMPY) return;
  repo = tempRepo();
  repo.add('codes', addSubConfig('codes'), { 'model.py': CODES_PY });
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, live: false });
  grpc = grpcClient(server.grpcAddress!);
});

after(async () => {
  grpc?.close();
  await server?.close();
  repo?.remove();
});

const values = (v: number) => [v, 1, 2, 3];
const httpInputs = (v: number) => [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: values(v) },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] },
];
const grpcRequest = (v: number) => ({
  model_name: 'codes',
  inputs: [
    { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], contents: { fp32_contents: values(v) } },
    { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], contents: { fp32_contents: [1, 1, 1, 1] } },
  ],
});
const message = (i: number) => `model refuses with ${CASES[i].name} (code ${i})`;

test("HTTP: each TritonError code gets Triton's HTTP status and the model's message", { skip: NO_NUMPY }, async () => {
  const got = await Promise.all(CASES.map((_, i) => inferJson(server.url, 'codes', httpInputs(i))));
  assert.deepEqual(
    got.map((r) => [r.status, r.body.error]),
    CASES.map((c, i) => [c.http, message(i)]),
  );
  const ok = await inferJson(server.url, 'codes', httpInputs(OK));
  assert.equal(ok.status, 200, 'a request naming no code is answered');
});

test("gRPC: each TritonError code gets Triton's gRPC status (one to one) and the model's message", { skip: NO_NUMPY }, async () => {
  const got = await Promise.all(
    CASES.map((_, i) => grpc.call('ModelInfer', grpcRequest(i)).then(() => ({ code: GrpcStatus.OK, details: 'answered' }), (err: { code: number; details: string }) => err)),
  );
  assert.deepEqual(
    got.map((e) => [GrpcStatus[e.code], e.details]),
    CASES.map((c, i) => [GrpcStatus[c.grpc], message(i)]),
  );
  const ok = await grpc.call('ModelInfer', grpcRequest(OK));
  assert.equal(ok.model_name, 'codes', 'a request naming no code is answered');
});
