/**
 * Backpressure reaches the model (issue 56): a client that never reads one request's many large responses
 * used to have the server take and hold all of them (+192 MB over gRPC for 200 of 1 MiB, +177 MB over
 * SSE) while the model was never slowed. Now the model's sender waits once a small window of its responses
 * has not left for the client (backends/stub/send-window.ts), on both client-facing streams.
 *
 * What is asserted is the model's own record (stream-fixtures.ts): how many of its sends returned while
 * the client read nothing. Unslowed it would send all COUNT within a second or two. Then the client reads:
 * every response arrives, in order, and the stream ends. A client that stays stuck past the stall bound
 * (parameter decoupled_send_stall_seconds) gets its request cancelled: the model sees is_cancelled() and
 * the stream a clear error after the responses that had left.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';
import { rawGrpcStream } from '../grpc/raw-stream.ts';
import { parseRawResponse } from './raw-http.ts';
import { MiB } from './harness.ts';
import { NO_NUMPY } from '../backends/stub-fixtures.ts';
import { floodRequest, settledProgress, writeFloodModel, type FloodModel } from './stream-fixtures.ts';
import { SEND_WINDOW_BYTES } from '../../apps/server/src/backends/stub/send-window.ts';
import { SEND_STALL_KEY } from '@inferscope/core/config';

const COUNT = 100;
const SIZE = 1 * MiB;
/**
 * Sends that may return before a client that reads nothing holds the model: the window (4 of 1 MiB), and
 * what the sockets' kernel buffers and HTTP/2's window take on loopback (a few MiB each way).
 */
const BOUND = 32;

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };
let flood: FloodModel;
let stuck: FloodModel;
let failing: FloodModel;

before(async () => {
  if (NO_NUMPY) return;
  repo = await tempRepository([]);
  flood = writeFloodModel(repo.dir, 'flood');
  stuck = writeFloodModel(repo.dir, 'flood_stall', `parameters { key: "${SEND_STALL_KEY}" value: { string_value: "1" } }`);
  failing = writeFloodModel(repo.dir, 'flood_raise', 'parameters { key: "raise_after_start" value: { string_value: "1" } }');
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, live: false, gpuCount: 0 });
});

after(async () => {
  await server?.close();
  await repo?.remove();
});

type StreamAnswer = { error_message: string; infer_response: { id: string; raw_output_contents: Buffer[] } };

test('gRPC: a stream client that does not read holds the model after a window of responses; then it reads all, in order', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  assert.ok(BOUND < COUNT && SEND_WINDOW_BYTES / SIZE < BOUND);
  flood.reset();
  const stream = rawGrpcStream(server.grpcAddress!, 'ModelStreamInfer');
  try {
    stream.write(floodRequest('flood', COUNT, SIZE, 'g1'));
    const held = await settledProgress(flood, SEND_WINDOW_BYTES / SIZE);
    assert.ok(held.sent <= BOUND, `the model sent ${held.sent} of ${COUNT} responses of 1 MiB to a client that reads nothing (bound ${BOUND})`);
    assert.equal(held.cancelled, false);

    stream.end();
    const answers = (await stream.readAll()) as StreamAnswer[];
    assert.deepEqual(answers.map((a) => a.error_message).filter(Boolean), []);
    assert.equal(answers.length, COUNT);
    answers.forEach((a, i) => {
      assert.equal(a.infer_response.id, 'g1');
      assert.equal(a.infer_response.raw_output_contents[1].readInt32LE(0), i, 'responses in the order sent');
      assert.equal(a.infer_response.raw_output_contents[0].length, 4 + SIZE);
    });
    assert.equal(flood.progress()?.sent, COUNT);
    console.log(`gRPC stream: the model's sends held at ${held.sent} of ${COUNT} (1 MiB each) while the client read nothing; then ${answers.length} in order`);
  } finally {
    stream.close();
  }
});

/** A generate_stream request over a bare socket that reads nothing until `read()` is called. */
function rawSse(port: number, model: string, body: object) {
  const text = JSON.stringify(body);
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.write(`POST /v2/models/${model}/generate_stream HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
  return {
    read(): Promise<{ status: number; events: Array<Record<string, unknown>> }> {
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('end', () => {
          const res = parseRawResponse(Buffer.concat(chunks));
          const events = res.body.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as Record<string, unknown>);
          resolve({ status: res.status, events });
        });
        socket.resume();
      });
    },
    close: () => socket.destroy(),
  };
}

test('SSE: a generate_stream client that does not read holds the model after a window of responses; then it reads all, in order', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  flood.reset();
  const client = rawSse(server.port, 'flood', { COUNT, SIZE });
  try {
    const held = await settledProgress(flood, SEND_WINDOW_BYTES / SIZE);
    assert.ok(held.sent <= BOUND, `the model sent ${held.sent} of ${COUNT} responses of 1 MiB to an SSE client that reads nothing (bound ${BOUND})`);
    assert.equal(held.cancelled, false);

    const { status, events } = await client.read();
    assert.equal(status, 200);
    assert.deepEqual(events.filter((e) => e.error), []);
    assert.equal(events.length, COUNT);
    events.forEach((e, i) => {
      assert.equal(e.IDX, i, 'events in the order sent');
      assert.equal((e.OUT as string).length, SIZE);
    });
    console.log(`SSE: the model's sends held at ${held.sent} of ${COUNT} (1 MiB each) while the client read nothing; then ${events.length} events in order`);
  } finally {
    client.close();
  }
});

test('a client stuck past the stall bound: the request is cancelled, the model sees it, the stream says why', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  stuck.reset();
  const stream = rawGrpcStream(server.grpcAddress!, 'ModelStreamInfer');
  try {
    stream.write(floodRequest('flood_stall', COUNT, SIZE, 'stuck'));
    // the model's record says it saw the cancellation (its wait in send() ended with it)
    const seen = await settledProgress(stuck, 1);
    assert.equal(seen.cancelled, true, `the model was not cancelled: ${JSON.stringify(seen)}`);
    assert.ok(seen.sent <= BOUND, `the model sent ${seen.sent} of ${COUNT}`);

    stream.end();
    const answers = (await stream.readAll()) as StreamAnswer[];
    const errors = answers.filter((a) => a.error_message);
    assert.equal(errors.length, 1, 'one error: the cancellation');
    assert.match(errors[0].error_message, new RegExp(`took none of its responses for 1 s .*cancelled \\(parameter ${SEND_STALL_KEY}\\)`));
    assert.equal(answers.at(-1), errors[0], 'the error comes last');
    const data = answers.slice(0, -1);
    assert.ok(data.length < COUNT);
    data.forEach((a, i) => assert.equal(a.infer_response.raw_output_contents[1].readInt32LE(0), i));
    console.log(`stall: cancelled after ${seen.sent} sends; the client then read ${data.length} responses and the error`);
  } finally {
    stream.close();
  }
});

test('a decoupled request that fails with its batch: a model thread waiting to send is told it is cancelled, not left waiting', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  failing.reset();
  const stream = rawGrpcStream(server.grpcAddress!, 'ModelStreamInfer');
  try {
    stream.write(floodRequest('flood_raise', COUNT, SIZE, 'f1'));
    const seen = await settledProgress(failing, 1);
    assert.equal(seen.cancelled, true, `the model's sender thread was left waiting: ${JSON.stringify(seen)}`);
    assert.ok(seen.sent <= BOUND, `the model sent ${seen.sent} of ${COUNT}`);
    stream.end();
    const answers = (await stream.readAll()) as StreamAnswer[];
    assert.match(answers.at(-1)!.error_message, /execute failed on purpose/);
    console.log(`failed batch: the sender thread was told after ${seen.sent} sends; the client read ${answers.length - 1} responses and the error`);
  } finally {
    stream.close();
  }
});
