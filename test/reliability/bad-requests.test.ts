/**
 * >= 1,000 malformed infer requests (seeded corpus, ./corpus.ts) against the real server: each gets a 4xx
 * with a Triton-style {"error": "..."} body, the server then answers a valid request exactly as before,
 * and a second pass over the corpus does not grow the heap. The bulk goes through inject(); a few hundred
 * go over real sockets, with what only a raw client can send (lying Content-Length, truncated bodies,
 * oversized headers, broken chunked encoding).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildBadCorpus, validMlpRequest, type BadCase } from './corpus.ts';
import { measureMemory, MiB, startServer, type Running } from './harness.ts';
import { postHead, rawRequest } from './raw-http.ts';

const BODY_LIMIT = 4 * MiB;
/** heap growth allowed between the end of pass 1 and the end of pass 2 (after forced GCs) */
const HEAP_TOLERANCE = 8 * MiB;
const RSS_TOLERANCE = 48 * MiB;

let server: Running;
const corpus = buildBadCorpus(1);

before(async () => {
  server = await startServer({ bodyLimit: BODY_LIMIT });
});
after(async () => {
  await server?.close();
});

function checkAnswer(c: BadCase, status: number, contentType: string | undefined, body: string): string | null {
  if (status < 400 || status > 499) return `status ${status}`;
  if (!/application\/json/.test(contentType ?? '')) return `content-type ${contentType}`;
  try {
    const doc = JSON.parse(body) as { error?: unknown };
    if (typeof doc.error !== 'string' || doc.error.length === 0) return `body without error: ${body.slice(0, 80)}`;
    if (/\n\s+at /.test(doc.error)) return 'error leaks a stack trace';
  } catch {
    return `body is not JSON: ${body.slice(0, 80)}`;
  }
  return null;
}

async function injectPass(): Promise<{ tried: number; refused: number; failures: string[]; byStatus: Record<number, number> }> {
  const failures: string[] = [];
  const byStatus: Record<number, number> = {};
  let refused = 0;
  for (const c of corpus) {
    const res = await server.app.inject({ method: 'POST', url: c.url, headers: c.headers, payload: c.body });
    byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
    const bad = checkAnswer(c, res.statusCode, res.headers['content-type'] as string | undefined, res.body);
    if (bad) failures.push(`[${c.category}] ${c.label}: ${bad} ${res.body.slice(0, 120)}`);
    else refused++;
  }
  return { tried: corpus.length, refused, failures, byStatus };
}

async function validAnswer(): Promise<number[]> {
  const res = await server.app.inject({ method: 'POST', url: '/v2/models/mlp_classifier/infer', payload: validMlpRequest(1, 'check') });
  assert.equal(res.statusCode, 200, res.body);
  const doc = res.json() as { id: string; outputs: { name: string; shape: number[]; data: number[] }[] };
  assert.equal(doc.id, 'check');
  assert.deepEqual(doc.outputs[0].shape, [1, 10]);
  const sum = doc.outputs[0].data.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - 1) < 1e-4, `softmax sums to ${sum}`);
  return doc.outputs[0].data;
}

test('every malformed request gets a 4xx Triton error; a valid one is answered the same after; no heap growth', { timeout: 120_000 }, async () => {
  assert.ok(corpus.length >= 1000, `corpus has ${corpus.length} cases`);
  const reference = await validAnswer();
  const pass1 = await injectPass();
  assert.deepEqual(pass1.failures.slice(0, 20), [], `${pass1.failures.length} of ${pass1.tried} not refused properly`);
  assert.deepEqual(await validAnswer(), reference, 'the valid request is answered exactly as before the corpus');
  const m1 = await measureMemory();
  const pass2 = await injectPass();
  const m2 = await measureMemory();
  assert.equal(pass2.failures.length, 0);
  const heapGrowth = m2.heapUsed - m1.heapUsed;
  const rssGrowth = m2.rss - m1.rss;
  console.log(
    `bad-requests (inject): tried ${pass1.tried + pass2.tried}, refused 4xx ${pass1.refused + pass2.refused}, statuses ${JSON.stringify(pass1.byStatus)}; ` +
      `heap ${(m1.heapUsed / MiB).toFixed(1)} -> ${(m2.heapUsed / MiB).toFixed(1)} MiB, rss ${(m1.rss / MiB).toFixed(1)} -> ${(m2.rss / MiB).toFixed(1)} MiB`,
  );
  assert.ok(heapGrowth < HEAP_TOLERANCE, `heap grew ${(heapGrowth / MiB).toFixed(1)} MiB over a second pass`);
  assert.ok(rssGrowth < RSS_TOLERANCE, `rss grew ${(rssGrowth / MiB).toFixed(1)} MiB over a second pass`);
});

test('over real sockets: corpus sample, lying Content-Length, truncated bodies, huge headers, bad chunking', { timeout: 90_000 }, async () => {
  const failures: string[] = [];
  let tried = 0;
  let refused = 0;
  let closedWithoutAnswer = 0;
  const expect4xx = (label: string, r: { status: number; headers: Record<string, string>; body: string; timedOut: boolean }) => {
    tried++;
    const bad = r.timedOut ? 'no answer within 5 s' : checkAnswer({} as BadCase, r.status, r.headers['content-type'], r.body);
    if (bad) failures.push(`${label}: ${bad}`);
    else refused++;
  };
  // 1) every 4th corpus case over the wire, honest framing
  for (let i = 0; i < corpus.length; i += 4) {
    const c = corpus[i];
    const head = postHead(c.url.replace(/ /g, '%20'), { ...c.headers, 'Content-Length': String(c.body.byteLength) });
    expect4xx(`[${c.category}] ${c.label}`, await rawRequest(server.port, head, c.body));
  }
  const valid = Buffer.from(JSON.stringify(validMlpRequest()));
  // 2) Content-Length beyond the body, client then stops sending: the server must not hang or crash.
  for (let i = 0; i < 20; i++) {
    const cut = valid.subarray(0, Math.floor((valid.byteLength * i) / 20));
    const r = await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Content-Type': 'application/json', 'Content-Length': String(valid.byteLength) }), cut, { halfClose: true });
    tried++;
    if (r.timedOut) failures.push(`truncated body ${i}: connection left hanging`);
    else if (r.status === 0) closedWithoutAnswer++; // nothing to answer: the client went away mid-body
    else if (r.status < 400 || r.status > 499) failures.push(`truncated body ${i}: status ${r.status}`);
    else refused++;
  }
  // 3) Content-Length above the body limit: refused before reading the body
  expect4xx('content-length above the limit', await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Content-Type': 'application/json', 'Content-Length': String(BODY_LIMIT + 1) }), valid.subarray(0, 100)));
  // 4) a body above the limit, really sent (chunked, so no Content-Length tells in advance)
  {
    const big = Buffer.alloc(BODY_LIMIT + 4096, 0x20);
    const chunk = Buffer.concat([Buffer.from(big.byteLength.toString(16) + '\r\n'), big, Buffer.from('\r\n0\r\n\r\n')]);
    const r = await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }), chunk);
    expect4xx('chunked body above the limit', r);
    // read to its end and counted (nothing kept): Triton's 400 quotes the real size
    assert.equal(r.status, 400);
    assert.match(r.body, new RegExp(`request JSON size of ${big.byteLength} bytes exceeds the maximum allowed input size`));
  }
  // 5) broken chunked framing, conflicting lengths, oversized headers
  expect4xx('bad chunk size', await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Transfer-Encoding': 'chunked' }), Buffer.from('zz\r\n{}\r\n0\r\n\r\n')));
  expect4xx('content-length and chunked', await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Transfer-Encoding': 'chunked', 'Content-Length': '5' }), Buffer.from('2\r\n{}\r\n0\r\n\r\n')));
  expect4xx('negative content-length', await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Content-Length': '-5' }), Buffer.alloc(0)));
  expect4xx('header above 16 KiB', await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'X-Pad': 'a'.repeat(20_000), 'Content-Length': String(valid.byteLength) }), valid));
  expect4xx('inference-header-content-length beyond body (wire)', await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Inference-Header-Content-Length': String(valid.byteLength + 100), 'Content-Length': String(valid.byteLength) }), valid));

  const check = await rawRequest(server.port, postHead('/v2/models/mlp_classifier/infer', { 'Content-Type': 'application/json', 'Content-Length': String(valid.byteLength) }), valid);
  assert.equal(check.status, 200, 'a valid request over the wire is still served');
  console.log(`bad-requests (socket): tried ${tried}, refused 4xx ${refused}, closed by a client that went away ${closedWithoutAnswer}, failures ${failures.length}`);
  assert.deepEqual(failures, []);
});
