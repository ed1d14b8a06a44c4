/**
 * One admission limit for every protocol (issue 28): --max-inflight-bytes charged HTTP bodies only, so
 * 8 of 8 concurrent 32 MiB gRPC ModelInfer calls were accepted under a 128 MiB limit, and a ~300-byte
 * request naming a 1 GiB shared-memory window made the server read the whole window before refusing it.
 * Here (8 MiB messages against a 20 MiB limit prove the same at a size this machine can spare):
 * - gRPC messages are charged to the same InflightBytes as HTTP bodies: past the limit UNAVAILABLE at
 *   once, while gRPC holds the budget HTTP gets its 503, and the budget comes back when they are answered;
 *   a stream's message waits for room instead (its id is in the bytes not read) and is then served;
 * - a shared-memory input's byte_size is checked against its tensor before one byte is read (HTTP and
 *   gRPC), only byte_size is read, and those bytes count against the same limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { status, type ServiceError } from '@grpc/grpc-js';
import { startTestServer, tempRepository } from '../support/server.ts';
import { grpcClient } from '../grpc/client.ts';
import { MiB } from './harness.ts';
import { postHead, rawRequest } from './raw-http.ts';
import { blobRequest, writeBlobModel } from './python-fixtures.ts';
import { BINARY_COST_FACTOR } from '../../apps/server/src/infer/inflight-bytes.ts';
import { NO_NUMPY } from '../backends/stub-fixtures.ts';

const LIMIT = 20 * MiB;

async function until(what: string, cond: () => boolean, tries = 600): Promise<void> {
  for (let i = 0; i < tries && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(cond(), `timed out waiting for ${what}`);
}

test('gRPC messages count against --max-inflight-bytes like HTTP bodies: UNAVAILABLE past it, one budget for both', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const repo = await tempRepository(['mlp_classifier']);
  const hold = writeBlobModel(repo.dir);
  const server = await startTestServer({ modelRepositories: [repo.dir], maxInflightBytes: LIMIT, grpcPort: 0, live: false, gpuCount: 0 });
  const client = grpcClient(server.grpcAddress!);
  try {
    const message = 4 * MiB; // charged ~8 MiB (raw bytes x BINARY_COST_FACTOR): two fit in 20 MiB, a third does not
    assert.ok(2 * message * BINARY_COST_FACTOR < LIMIT && 3 * message * BINARY_COST_FACTOR > LIMIT);
    writeFileSync(hold, '');
    const outcomes: Array<{ ok: boolean; err?: ServiceError } | undefined> = Array(8).fill(undefined);
    const calls = Array.from({ length: 8 }, (_, i) =>
      client.call('ModelInfer', blobRequest(message, 8, `r${i}`)).then(() => (outcomes[i] = { ok: true }), (err: ServiceError) => (outcomes[i] = { ok: false, err })),
    );
    await until('6 refusals', () => outcomes.filter(Boolean).length >= 6);
    const refused = outcomes.filter((o) => o && !o.ok);
    assert.equal(refused.length, 6, `6 of 8 refused while 2 are held (got ${JSON.stringify(outcomes.map((o) => o?.err?.code ?? o?.ok))})`);
    for (const o of refused) {
      assert.equal(o!.err!.code, status.UNAVAILABLE);
      assert.match(o!.err!.details, /limit of \d+ bytes of requests in flight \(--max-inflight-bytes\)/);
    }
    // the budget the two held gRPC calls take is the one HTTP is admitted against
    const http = await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'content-type': 'application/json', 'content-length': String(2 * MiB) }), Buffer.alloc(0), { timeoutMs: 10_000 });
    assert.equal(http.status, 503, JSON.stringify(http).slice(0, 200));
    // a stream's message is charged from its prefix too: with no room it is not read (its HTTP/2 stream is
    // paused, the client's writes wait) until the held calls give their bytes back; then it is served
    const stream = client.raw.ModelStreamInfer();
    const streamed: Array<{ error_message: string; infer_response?: { id: string } }> = [];
    stream.on('data', (m: { error_message: string; infer_response?: { id: string } }) => streamed.push(m));
    stream.write(blobRequest(message, 8, 's0'));
    await until('the stream message to wait for room', () => server.built.inflight.waiting === 1);
    assert.equal(streamed.length, 0);

    rmSync(hold);
    await Promise.all(calls);
    await until('the stream answer', () => streamed.length === 1);
    assert.equal(streamed[0].error_message, '', 'the waiting stream message is served, not refused');
    assert.equal(streamed[0].infer_response?.id, 's0');
    stream.end();
    assert.equal(outcomes.filter((o) => o?.ok).length, 2, 'the two admitted calls are answered');
    // every charge came back: three at once are admitted one after another now
    const again = await Promise.allSettled([0, 1].map((i) => client.call('ModelInfer', blobRequest(message, 8, `again${i}`))));
    assert.deepEqual(again.map((r) => r.status), ['fulfilled', 'fulfilled']);
    await until('every charge to come back (unary, stream, HTTP)', () => server.built.inflight.inUse === 0);
    console.log(`grpc admission: 8 concurrent ${message / MiB} MiB ModelInfer under ${LIMIT / MiB} MiB: 2 admitted, 6 UNAVAILABLE; HTTP 503 while they were held`);
  } finally {
    client.close();
    rmSync(hold, { force: true });
    await server.close();
    await repo.remove();
  }
});

test('a shared-memory input is checked against its tensor before anything is read, and charged', { skip: existsSync('/dev/shm') ? NO_NUMPY : 'no /dev/shm', timeout: 180_000 }, async () => {
  const key = `/inferscope_window_${process.pid}`;
  const region = 64 * MiB;
  writeFileSync(`/dev/shm${key}`, '');
  truncateSync(`/dev/shm${key}`, region); // sparse: costs no memory until read
  const repo = await tempRepository(['mlp_classifier']);
  writeBlobModel(repo.dir);
  const server = await startTestServer({ modelRepositories: [repo.dir], maxInflightBytes: LIMIT, grpcPort: 0, live: false, gpuCount: 0 });
  const client = grpcClient(server.grpcAddress!);
  const shm = server.built.shm;
  const reads: number[] = [];
  const read = shm.read.bind(shm);
  shm.read = (name, offset, byteSize) => {
    reads.push(byteSize);
    return read(name, offset, byteSize);
  };
  try {
    const app = server.built.app;
    assert.equal((await app.inject({ method: 'POST', url: '/v2/systemsharedmemory/region/window/register', payload: { key, offset: 0, byte_size: region } })).statusCode, 200);
    const input = 784 * 4;
    const httpInfer = (byteSize: number) => app.inject({
      method: 'POST', url: '/v2/models/mlp_classifier/infer',
      payload: { inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { shared_memory_region: 'window', shared_memory_byte_size: byteSize } }] },
    });
    const grpcInfer = (byteSize: number) => client.call('ModelInfer', {
      model_name: 'mlp_classifier',
      inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { shared_memory_region: { string_param: 'window' }, shared_memory_byte_size: { int64_param: byteSize } } }],
    });
    // the whole window named for a 3136-byte input: refused, nothing read
    const http = await httpInfer(region);
    assert.equal(http.statusCode, 400, http.body);
    assert.match(http.json().error, new RegExp(`input byte size mismatch for input 'input' for model 'mlp_classifier'. Expected ${input}, got ${region}`));
    await assert.rejects(grpcInfer(region), (e: ServiceError) => e.code === status.INVALID_ARGUMENT && /byte size mismatch/.test(e.details));
    await assert.rejects(grpcInfer(input - 4), (e: ServiceError) => e.code === status.INVALID_ARGUMENT);
    assert.deepEqual(reads, [], 'no byte was read for a byte_size that is not the tensor\'s');
    // the right size: read, exactly byte_size
    assert.equal((await httpInfer(input)).statusCode, 200);
    await grpcInfer(input);
    assert.deepEqual(reads, [input, input]);
    // bytes read from shared memory are charged like a body: 32 MiB beside the message's charge passes 20 MiB
    await assert.rejects(
      client.call('ModelInfer', {
        model_name: 'blob',
        inputs: [{ name: 'IN', datatype: 'FP32', shape: [8 * MiB], parameters: { shared_memory_region: { string_param: 'window' }, shared_memory_byte_size: { int64_param: 32 * MiB } } }, { name: 'SIZE', datatype: 'INT32', shape: [1], contents: { int_contents: [8] } }],
      }),
      (e: ServiceError) => e.code === status.UNAVAILABLE && /--max-inflight-bytes/.test(e.details),
    );
    assert.deepEqual(reads, [input, input], 'a read past the budget is refused before it is made');
    console.log(`shm window: ${region / MiB} MiB window named for a ${input}-byte input refused with 0 bytes read (HTTP, gRPC); a 32 MiB shm input past ${LIMIT / MiB} MiB UNAVAILABLE unread`);
  } finally {
    client.close();
    await server.close();
    await repo.remove();
    rmSync(`/dev/shm${key}`, { force: true });
  }
});

test('a compressed HTTP body is charged at the size it inflates to', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: ['mlp_classifier'], maxInflightBytes: LIMIT, live: false, gpuCount: 0 });
  try {
    const json = JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: Array(784).fill(0) }] });
    const post = (body: string) => server.built.app.inject({ method: 'POST', url: '/v2/models/mlp_classifier/infer', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: gzipSync(body) });
    assert.equal((await post(json)).statusCode, 200);
    // 8 MiB of JSON (padding is whitespace) in a ~8 KiB gzip body: charged 48 MiB once inflated
    const bomb = await post(json.slice(0, -1) + ' '.repeat(8 * MiB) + '}');
    assert.equal(bomb.statusCode, 503, bomb.body);
    assert.match(bomb.json().error, /--max-inflight-bytes/);
    assert.equal((await post(json)).statusCode, 200, 'the charge came back');
  } finally {
    await server.close();
  }
});
