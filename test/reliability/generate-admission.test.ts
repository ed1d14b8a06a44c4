/**
 * The generate extension is admitted as infer is (issue 56). It used to skip the per-request memory
 * estimate (a 300,000-token request that infer refuses under --max-inflight-bytes ran through generate),
 * its body limit was the control routes' 1 MiB while its refusal named --http-max-input-size, and BYTES
 * text it could not carry became U+FFFD silently. Now: one admission (the infer scope's charge and
 * runInference's estimate), the body limit of the flag it names, and text that is exact or refused, on
 * generate and on infer's JSON alike (the same decoder).
 */
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/server.ts';
import { MiB } from './harness.ts';
import { NO_NUMPY } from '../backends/stub-fixtures.ts';
import { generateResponse } from '../../apps/server/src/kserve/generate.ts';
import { encodeJsonData } from '../../apps/server/src/infer/json-data.ts';

const json = (payload: string | Buffer) => ({ method: 'POST' as const, headers: { 'content-type': 'application/json' }, payload });
const tokenIds = (n: number) => `[${new Array(n).fill('0').join(',')}]`;

test('generate applies infer\'s memory estimate under --max-inflight-bytes, and the body limit of the flag its refusal names', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: ['text_encoder'], maxInflightBytes: 64 * MiB, inferBodyLimit: 4 * MiB, live: false, gpuCount: 0 });
  try {
    // 300,000 tokens: a 600 KB body, ~79 MB while it runs: more than the whole limit, on both endpoints
    const long = `{"token_ids": ${tokenIds(300_000)}}`;
    for (const route of ['generate', 'generate_stream']) {
      const res = await server.built.app.inject({ url: `/v2/models/text_encoder/${route}`, ...json(long) });
      assert.equal(res.statusCode, 400, `${route}: ${res.body}`);
      assert.match(res.json().error, /would need \d+\.\d MiB while it runs .*more than the 64\.0 MiB --max-inflight-bytes allows/);
    }
    const infer = await server.built.app.inject({ url: '/v2/models/text_encoder/infer', ...json(JSON.stringify({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 300_000], data: new Array(300_000).fill(0) }] })) });
    assert.equal(infer.statusCode, 400);
    assert.ok(!server.events.some((e) => e.type === 'request.queued' && e.model === 'text_encoder'), 'nothing was queued');

    // a short one is served, also with a body past the control routes' 1 MiB (padding): --http-max-input-size governs
    const padded = `{"token_ids": ${tokenIds(1000)}}${' '.repeat(2 * MiB)}`;
    const ok = await server.built.app.inject({ url: '/v2/models/text_encoder/generate', ...json(padded) });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().embedding.length, 64);
    // a gzip body, as infer takes one
    const zipped = await server.built.app.inject({ url: '/v2/models/text_encoder/generate', method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: gzipSync(`{"token_ids": ${tokenIds(10)}}`) });
    assert.equal(zipped.statusCode, 200, zipped.body);
    // past it: refused, naming that flag
    const big = await server.built.app.inject({ url: '/v2/models/text_encoder/generate', ...json(`{"token_ids": [0]}${' '.repeat(5 * MiB)}`) });
    assert.equal(big.statusCode, 400, big.body);
    assert.match(big.json().error, new RegExp(`maximum allowed input size of ${4 * MiB} bytes\\. Use --http-max-input-size`));
  } finally {
    await server.close();
  }
});

test('generate and infer refuse a body that is not UTF-8, naming why, instead of running on U+FFFD', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: ['text_encoder'], live: false, gpuCount: 0 });
  try {
    const bad = Buffer.concat([Buffer.from('{"token_ids": [0], "id": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    for (const route of ['generate', 'generate_stream']) {
      const res = await server.built.app.inject({ url: `/v2/models/text_encoder/${route}`, ...json(bad) });
      assert.equal(res.statusCode, 400, `${route}: ${res.body}`);
      assert.match(res.json().error, /not valid UTF-8/);
    }
    const infer = Buffer.concat([Buffer.from('{"id": "'), Buffer.from([0xc3]), Buffer.from('", "inputs": [{"name": "token_ids", "datatype": "INT64", "shape": [1, 1], "data": [0]}]}')]);
    const res = await server.built.app.inject({ url: '/v2/models/text_encoder/infer', ...json(infer) });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error, /not valid UTF-8/);
  } finally {
    await server.close();
  }
});

test('a lone surrogate in a BYTES string is refused (UTF-8 cannot hold it), on generate and infer; a paired one is text', { skip: NO_NUMPY, timeout: 180_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: ['text_tokenizer'], live: false, gpuCount: 0 });
  try {
    const gen = await server.built.app.inject({ url: '/v2/models/text_tokenizer/generate', ...json('{"text": "ab\\ud800c"}') });
    assert.equal(gen.statusCode, 400, gen.body);
    assert.match(gen.json().error, /lone UTF-16 surrogate/);
    const infer = await server.built.app.inject({ url: '/v2/models/text_tokenizer/infer', ...json('{"inputs": [{"name": "text", "datatype": "BYTES", "shape": [1, 1], "data": ["\\udc00"]}]}') });
    assert.equal(infer.statusCode, 400, infer.body);
    assert.match(infer.json().error, /element 0 of BYTES input 'text' holds a lone UTF-16 surrogate/);
    const paired = await server.built.app.inject({ url: '/v2/models/text_tokenizer/generate', ...json('{"text": "a \\ud83d\\ude00 b"}') });
    assert.equal(paired.statusCode, 200, paired.body);
  } finally {
    await server.close();
  }
});

test('BYTES output that is not UTF-8 is refused with its name on the JSON encoders, never turned into U+FFFD', () => {
  const bytes = [new Uint8Array([0x68, 0x69]), new Uint8Array([0xff, 0x00])];
  const tensor = { name: 'OUT', datatype: 'BYTES' as const, shape: [2], data: bytes };
  const r = { served: { name: 'm', version: '1' }, request: { id: 'x' }, outputs: [tensor] } as unknown as Parameters<typeof generateResponse>[0];
  assert.throws(() => generateResponse(r), /element 1 of BYTES output 'OUT' holds bytes that are not valid UTF-8.*generate endpoint/);
  assert.throws(() => encodeJsonData('BYTES', bytes, 'OUT'), /element 1 of BYTES output 'OUT' holds bytes that are not valid UTF-8.*binary_data/);
  // valid text passes unchanged
  assert.equal(encodeJsonData('BYTES', [new TextEncoder().encode('h\u00e9 \u{1f600}')], 'OUT'), JSON.stringify(['h\u00e9 \u{1f600}']));
});

test('a body-size refusal names only the flag that sets the route\'s limit', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', inferBodyLimit: 4 * MiB, live: false, gpuCount: 0 });
  try {
    // a control route's limit is fixed (1 MiB): no flag to name
    const control = await server.built.app.inject({ url: '/v2/logging', ...json(`{}${' '.repeat(2 * MiB)}`) });
    assert.equal(control.statusCode, 400, control.body);
    assert.match(control.json().error, new RegExp(`maximum allowed input size of ${MiB} bytes\\.$`));
    // repository load takes --http-max-input-size's limit (file: contents), and names it
    const load = await server.built.app.inject({ url: '/v2/repository/models/x/load', ...json(`{}${' '.repeat(5 * MiB)}`) });
    assert.equal(load.statusCode, 400, load.body);
    assert.match(load.json().error, new RegExp(`maximum allowed input size of ${4 * MiB} bytes\\. Use --http-max-input-size to increase the limit`));
  } finally {
    await server.close();
  }
});
