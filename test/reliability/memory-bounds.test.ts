/**
 * Memory is bounded by what the server accepts (issue 13, item 6):
 * - bytes in flight: every inference request is charged (Content-Length x its decoding cost) when its
 *   headers arrive; above --max-inflight-bytes it is refused with 503 at once, nothing buffered;
 * - the memory budget counts what an instance really costs (its worker thread too): 64 CNN instances
 *   used to be admitted against 300 MiB while RSS grew by 1 GB.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { MiB, tempRepository } from './harness.ts';
import { postHead, rawRequest } from './raw-http.ts';
import { validMlpRequest } from './corpus.ts';
import { JSON_COST_FACTOR } from '../../apps/server/src/infer/inflight-bytes.ts';

const INFER = '/v2/models/mlp_classifier/infer';

/** Opens a request whose body never completes: it holds its charge until the socket closes. */
function openHeldRequest(port: number, contentLength: number): Promise<{ close(): void }> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.write(postHead(INFER, { 'content-type': 'application/json', 'content-length': String(contentLength) }) + '\r\n\r\n{"inputs":');
      // give the server a moment to see the headers (onRequest runs when they are parsed)
      setTimeout(() => resolve({ close: () => s.destroy() }), 300);
    });
    s.on('error', () => {});
  });
}

test('requests past --max-inflight-bytes are refused at once with 503; the budget comes back', { timeout: 120_000 }, async () => {
  const limit = 200 * MiB;
  const server = await startTestServer({ maxInflightBytes: limit, gpuCount: 0 });
  try {
    const big = 30 * MiB; // charged 180 MiB as JSON
    assert.ok(big * JSON_COST_FACTOR < limit && 2 * big * JSON_COST_FACTOR > limit);
    const held = await openHeldRequest(server.port, big);
    // a small request still fits beside it
    const small = await server.built.app.inject({ method: 'POST', url: INFER, payload: validMlpRequest() });
    assert.equal(small.statusCode, 200, small.body);
    // a second big one does not: refused before its body is read
    const refused = await rawRequest(server.port, postHead(INFER, { 'content-type': 'application/json', 'content-length': String(big) }), Buffer.alloc(0), { timeoutMs: 10_000 });
    assert.equal(refused.status, 503, JSON.stringify(refused).slice(0, 300));
    assert.match(JSON.parse(refused.body).error, /limit of \d+ bytes of requests in flight/);
    held.close();
    await new Promise((r) => setTimeout(r, 300));
    // released on close: the same request is admitted now (it then waits for a body that never comes)
    const admitted = await rawRequest(server.port, postHead(INFER, { 'content-type': 'application/json', 'content-length': String(big) }), Buffer.alloc(0), { timeoutMs: 1500 });
    assert.notEqual(admitted.status, 503, 'the charge of a closed request was never released');
    const after = await server.built.app.inject({ method: 'POST', url: INFER, payload: validMlpRequest() });
    assert.equal(after.statusCode, 200);
  } finally {
    await server.close();
  }
});

test('clients refused over the in-flight limit while still uploading get the 503, never a reset', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ maxInflightBytes: 8 * MiB, gpuCount: 0 });
  try {
    const held = await openHeldRequest(server.port, 2 * MiB); // charged 12 MiB: the budget is full
    const body = Buffer.alloc(4 * MiB, 32);
    // Each request's answer and, separately, whether its upload was cut (EPIPE / ECONNRESET from a closed
    // connection, even after the answer: many clients fail on that before they read the answer).
    const outcomes = await Promise.all(Array.from({ length: 40 }, () => new Promise<string>((resolve) => {
      let status = 'no answer';
      let cut = '';
      const req = httpRequest({ host: '127.0.0.1', port: server.port, method: 'POST', path: INFER, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        res.resume();
        res.on('end', () => (status = String(res.statusCode)));
      });
      req.on('error', (e: NodeJS.ErrnoException) => (cut = ` + ${e.code ?? e.message}`));
      req.on('close', () => setImmediate(() => resolve(status + cut)));
      req.end(body);
    })));
    held.close();
    const counts: Record<string, number> = {};
    for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
    assert.deepEqual(counts, { 503: 40 }, `outcomes ${JSON.stringify(counts)} (with 'connection: close' on the refusal every upload was cut by EPIPE after the 503)`);
  } finally {
    await server.close();
  }
});

test('four concurrent 40 MiB JSON bodies against a 256 MiB in-flight limit: RSS stays bounded', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ maxInflightBytes: 256 * MiB, inferBodyLimit: 64 * MiB, gpuCount: 0 });
  try {
    const rows = 26_000; // shape says 64 rows: each body is refused with 400 after decoding, or 503 before
    const body = Buffer.from(`{"inputs":[{"name":"input","datatype":"FP32","shape":[64,784],"data":[${'0,'.repeat(rows * 784 - 1)}0]}]}`);
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const answers = await Promise.all([0, 1, 2, 3].map(() => rawRequest(server.port, postHead(INFER, { 'content-type': 'application/json', 'content-length': String(body.byteLength) }), body, { timeoutMs: 60_000 })));
    clearInterval(sampler);
    const statuses = answers.map((a) => a.status).sort();
    assert.ok(statuses.every((s) => s === 400 || s === 503), `statuses ${statuses}`);
    assert.ok(statuses.includes(503), `no request was refused: ${statuses}`);
    const grown = (peak - rss0) / MiB;
    console.log(`in-flight bytes: 4 x ${(body.byteLength / MiB).toFixed(0)} MiB JSON, answers ${statuses.join(',')}, RSS peak +${grown.toFixed(0)} MiB`);
    assert.ok(grown < 900, `RSS grew ${grown.toFixed(0)} MiB`);
  } finally {
    await server.close();
  }
});

test('64 CNN instances are refused against a 300 MiB budget before RSS passes it', { timeout: 300_000 }, async () => {
  const repo = await tempRepository(['cnn_classifier']);
  const path = join(repo.dir, 'cnn_classifier/config.pbtxt');
  await writeFile(path, (await readFile(path, 'utf8')).replace(/count: \d+/, 'count: 64'));
  const budget = 300 * MiB;
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const server = await startTestServer({ modelRepositories: [repo.dir], memoryBudget: { cpu: budget }, gpuCount: 0 });
  try {
    clearInterval(sampler);
    const cpu = server.built.memory.snapshot().find((d) => d.device === 'cpu')!;
    assert.ok(cpu.used_bytes <= budget, `ledger ${cpu.used_bytes} over the budget`);
    assert.ok(cpu.entries.length < 64, `all ${cpu.entries.length} instances admitted`);
    const grown = (peak - rss0) / MiB;
    console.log(`memory budget: ${cpu.entries.length} of 64 CNN instances admitted against 300 MiB (ledger ${(cpu.used_bytes / MiB).toFixed(0)} MiB); RSS peak +${grown.toFixed(0)} MiB`);
    assert.ok(grown < (budget / MiB) * 1.25, `RSS grew ${grown.toFixed(0)} MiB against a ${budget / MiB} MiB budget`);
  } finally {
    clearInterval(sampler);
    await server.close();
    await repo.remove();
  }
});

test('a request keeps its charge while it waits in the scheduler, and gives it back when answered', { timeout: 120_000 }, async () => {
  const repo = await tempRepository(['text_encoder']);
  const path = join(repo.dir, 'text_encoder/config.pbtxt');
  await writeFile(path, (await readFile(path, 'utf8')).replace('max_queue_delay_microseconds: 500', 'max_queue_delay_microseconds: 500000'));
  const server = await startTestServer({ modelRepositories: [repo.dir], maxInflightBytes: 200 * 1024, gpuCount: 0 });
  try {
    // ~1 KiB of JSON, charged its estimated memory while it runs (450 tokens x 256 bytes of embedding rows,
    // ~118 KiB: memory/request-cost.ts): one fits in 200 KiB, two do not
    const payload = { inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 450], data: new Array(450).fill(7) }] };
    const url = '/v2/models/text_encoder/infer';
    const first = server.built.app.inject({ method: 'POST', url, payload });
    // the first waits in the queue (500 ms delay): the second is sent only once the scheduler holds it
    await waitFor(() => server.events.some((e) => e.type === 'request.queued' && e.model === 'text_encoder'), 'the first request queued');
    const second = await server.built.app.inject({ method: 'POST', url, payload });
    assert.equal(second.statusCode, 503, `second: ${second.statusCode} ${second.body.slice(0, 200)}`);
    assert.equal((await first).statusCode, 200);
    const third = await server.built.app.inject({ method: 'POST', url, payload });
    assert.equal(third.statusCode, 200, 'the first request never gave its charge back');
  } finally {
    await server.close();
    await repo.remove();
  }
});
