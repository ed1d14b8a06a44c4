import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, errorCodeOf, httpStatusOfCode } from './codes';
import { InferError, TRANSPORT_STATUSES, asInferError, codeOf } from './infer-error';
import { errors } from './messages';

// Triton's TRITONSERVER_Error_Code (and pb_utils.TritonError) values and its HTTP status for each
// (HttpCodeFromError in server/src/http_server.cc), written out here independently of codes.ts.
const TRITON: [name: string, value: number, http: number][] = [
  ['UNKNOWN', 0, 400],
  ['INTERNAL', 1, 500],
  ['NOT_FOUND', 2, 404],
  ['INVALID_ARG', 3, 400],
  ['UNAVAILABLE', 4, 503],
  ['UNSUPPORTED', 5, 501],
  ['ALREADY_EXISTS', 6, 400],
  ['CANCELLED', 7, 400],
];

test("the eight codes, in Triton's numeric order", () => {
  assert.deepEqual([...ERROR_CODES], TRITON.map(([name]) => name));
});

for (const [name, value, http] of TRITON) {
  test(`${name}: read by name and by number ${value}; HTTP ${http}`, () => {
    assert.equal(errorCodeOf(name), name);
    assert.equal(errorCodeOf(value), name);
    assert.equal(httpStatusOfCode(errorCodeOf(name)), http);
    assert.equal(new InferError(errorCodeOf(value), 'm').httpStatus, http);
  });
}

test('a code a peer gets wrong is INTERNAL', () => {
  for (const bad of [8, -1, 1.5, 'not_found', 'BOGUS', null, undefined, true, {}]) assert.equal(errorCodeOf(bad), 'INTERNAL', String(bad));
});

test('transport-level refusals keep their own HTTP status and a code for the other protocols', () => {
  const cases: [InferError, number, string][] = [
    [errors.UNSUPPORTED_MEDIA('Unsupported Media Type: x/y'), 415, 'INVALID_ARG'],
    [errors.METHOD_NOT_ALLOWED(), 405, 'UNSUPPORTED'],
    [errors.CONTROL_REFUSED('no token', 401), 401, 'UNAVAILABLE'],
    [errors.CONTROL_REFUSED('wrong token', 403), 403, 'UNAVAILABLE'],
    [errors.CLIENT_CANCELLED('gone'), 499, 'CANCELLED'],
  ];
  assert.deepEqual(cases.map(([e]) => e.httpStatus).sort(), [...TRANSPORT_STATUSES].sort());
  for (const [e, http, code] of cases) assert.deepEqual([e.httpStatus, e.code], [http, code], e.message);
});

test("Triton's lookup wording and 404 for an unknown model, 503 for a version not ready", () => {
  assert.deepEqual([errors.UNKNOWN_MODEL('m').message, errors.UNKNOWN_MODEL('m').httpStatus], ["Request for unknown model: 'm' is not found", 404]);
  assert.equal(errors.UNKNOWN_VERSION('m', 3).httpStatus, 404);
  assert.equal(errors.NO_AVAILABLE_VERSION('m').httpStatus, 404);
  assert.equal(errors.VERSION_NOT_READY('m', 1).httpStatus, 503);
  assert.deepEqual([errors.QUEUE_FULL().message, errors.QUEUE_FULL().code], ['Exceeds maximum queue size', 'UNAVAILABLE']);
  assert.deepEqual([errors.TIMEOUT().message, errors.TIMEOUT().code], ['Request timeout expired', 'UNAVAILABLE']);
});

test('anything else thrown is INTERNAL with its message', () => {
  assert.equal(codeOf(new Error('boom')), 'INTERNAL');
  assert.equal(codeOf(errors.UNKNOWN_MODEL('m')), 'NOT_FOUND');
  assert.deepEqual([asInferError('text').code, asInferError('text').message], ['INTERNAL', 'text']);
  const same = errors.INVALID('x');
  assert.equal(asInferError(same), same);
});
