/**
 * The sequence parameters as each front end reads them (Triton's http_server.cc and grpc infer_handler.cc):
 * HTTP takes an unsigned integer or a string id and boolean flags; gRPC takes int64_param (its 64 bits as
 * unsigned) or string_param for the id, never uint64_param, and bool_param flags.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInferRequest } from '../../apps/server/src/kserve/parse-request';
import { parseGrpcRequest, type GrpcInferRequest } from '../../apps/server/src/grpc/codec';

const http = (parameters: unknown) =>
  parseInferRequest(new TextEncoder().encode(JSON.stringify({ parameters, inputs: [] })), undefined, 'm').sequence;

const grpc = (parameters: GrpcInferRequest['parameters']) =>
  parseGrpcRequest({ model_name: 'm', inputs: [], outputs: [], parameters } as unknown as GrpcInferRequest).sequence;

test('HTTP: a uint id is a bigint, a string id a string, flags booleans; anything else is refused', () => {
  assert.deepEqual(http({ sequence_id: 42, sequence_start: true }), { id: 42n, start: true });
  assert.deepEqual(http({ sequence_id: '42', sequence_end: true }), { id: '42', end: true });
  assert.deepEqual(http({ sequence_start: false }), { id: 0n, start: false }, 'no id: Triton\'s 0');
  assert.equal(http({ priority: 1 }), undefined);
  for (const bad of [-1, 1.5, true, null, [1]]) assert.throws(() => http({ sequence_id: bad }), /Unable to parse 'sequence_id'/);
  assert.throws(() => http({ sequence_start: 1 }), /Unable to parse 'sequence_start'/);
  assert.throws(() => http({ sequence_end: 'yes' }), /Unable to parse 'sequence_end'/);
});

test("gRPC: int64_param or string_param ids, bool_param flags; uint64_param refused with Triton's words", () => {
  assert.deepEqual(grpc({ sequence_id: { parameter_choice: 'int64_param', int64_param: '9007199254740993' }, sequence_start: { parameter_choice: 'bool_param', bool_param: true } }),
    { id: 9007199254740993n, start: true });
  assert.deepEqual(grpc({ sequence_id: { parameter_choice: 'int64_param', int64_param: '-1' } }), { id: 2n ** 64n - 1n });
  assert.deepEqual(grpc({ sequence_id: { parameter_choice: 'string_param', string_param: 'abc' } }), { id: 'abc' });
  assert.throws(() => grpc({ sequence_id: { parameter_choice: 'uint64_param', uint64_param: '5' } }),
    (e) => e instanceof Error && e.message === "invalid value type for 'sequence_id' parameter, expected int64_param or string_param.");
  assert.throws(() => grpc({ sequence_end: { parameter_choice: 'int64_param', int64_param: '1' } }),
    /invalid value type for 'sequence_end' parameter, expected bool_param\./);
  // the other parameters are still checked as before
  assert.throws(() => grpc({ sequence_id: { parameter_choice: 'int64_param', int64_param: '1' }, triton_x: { parameter_choice: 'string_param', string_param: 'y' } }), /reserved/);
});
