/**
 * Streams have backpressure (issue 28): a ModelStreamInfer client that wrote requests and never read its
 * answers had the server read and run every request and hold every answer (+611 MB for 150 answers of
 * 4 MiB). Now a stream is read at most MAX_OUTSTANDING_PER_STREAM requests ahead of the answers that have
 * left (grpc/stream-flow.ts): the server stops taking requests from a client that does not read, and once
 * the client reads, every request gets exactly one answer, its own.
 *
 * The client is a bare HTTP/2 stream that stops reading (grpc-js's client keeps reading into its own
 * buffer). What is counted is the requests the server has taken (queued events), not memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, tempRepository } from '../support/server.ts';
import { rawGrpcStream, type RawGrpcStream } from '../grpc/raw-stream.ts';
import { MiB } from './harness.ts';
import { blobRequest, writeBlobModel } from './python-fixtures.ts';
import { MAX_OUTSTANDING_PER_STREAM } from '../../apps/server/src/grpc/stream-flow.ts';
import { NO_NUMPY } from '../backends/stub-fixtures.ts';

const SENT = 64;
const ANSWER = 1 * MiB;
/** Requests the server may take from a client that reads nothing: its outstanding bound, and an answer or two the 64 KiB window and the socket hold. */
const BOUND = MAX_OUTSTANDING_PER_STREAM + 2;

test('a stream whose client does not read stops being read; once it reads, every request is answered once', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  assert.ok(BOUND < SENT);
  const repo = await tempRepository([]);
  writeBlobModel(repo.dir);
  const server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: 0, live: false, gpuCount: 0 });
  const taken = () => server.events.filter((e) => e.type === 'request.queued' && e.model === 'blob').length;
  let stream: RawGrpcStream | undefined;
  try {
    stream = rawGrpcStream(server.grpcAddress!, 'ModelStreamInfer');
    for (let i = 0; i < SENT; i++) stream.write(blobRequest(4, ANSWER, `s${i}`));
    // wait until the server stops taking requests (bounded: 200 polls), then check how many it took
    let last = -1;
    let still = 0;
    for (let i = 0; i < 200 && still < 30; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const now = taken();
      still = now === last ? still + 1 : 0;
      last = now;
    }
    const held = taken();
    assert.ok(held > 0, 'the server took no request at all');
    assert.ok(held <= BOUND, `the server took ${held} of ${SENT} requests from a client that reads nothing (bound ${BOUND})`);

    // the client reads now: every request answered exactly once, with its own id and answer
    stream.end();
    const answers = (await stream.readAll()) as Array<{ error_message: string; infer_response: { id: string; raw_output_contents: Buffer[] } }>;
    assert.equal(answers.length, SENT);
    assert.deepEqual(answers.map((a) => a.error_message).filter(Boolean), []);
    assert.deepEqual(new Set(answers.map((a) => a.infer_response.id)), new Set(Array.from({ length: SENT }, (_, i) => `s${i}`)));
    for (const a of answers) assert.equal(a.infer_response.raw_output_contents[0].length, ANSWER);
    assert.equal(taken(), SENT);
    console.log(`stream backpressure: a non-reading client sent ${SENT} requests for ${ANSWER / MiB} MiB answers; the server took ${held} (bound ${BOUND}); after reading: ${answers.length} answers, each once`);
  } finally {
    stream?.close();
    await server.close();
    await repo.remove();
  }
});
