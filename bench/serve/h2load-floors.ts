/**
 * The transport floors under h2load.ts's comparison: what the protocol stack alone costs the server per
 * request, with no model, scheduler or validation, under the same h2load load (c=32, one call per
 * connection unless --streams):
 *   - a bare Fastify route reading the KServe binary body (HTTP/1.1, h2load --h1),
 *   - a bare grpc-js server (the library and options InferScope's endpoint uses) answering ModelInfer with
 *     a fixed ModelInferResponse after decoding the request,
 *   - a bare node:http2 handler doing the same gRPC framing by hand (what grpc-js is built on).
 * Each answers on the next turn of the event loop (setImmediate), as a real answer arrives later.
 *
 *   node --import tsx bench/serve/h2load-floors.ts [--rounds 3] [--requests 30000] [--c 32] [--streams 1]
 */
import { writeFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Server, ServerCredentials, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { inferenceService } from '../../apps/server/src/grpc/proto';
import { grpcFrame } from '../../apps/server/src/grpc/direct-unary';
import { benchInput } from './bench-models';
import { binaryRequest } from '../../test/kserve/wire';
import { arg } from '../args';
import { ensureH2load, grpcInferBody, h2load } from './h2load-client';
import { median } from '../median';

const rounds = Number(arg('--rounds', '3'));
const requests = Number(arg('--requests', '30000'));
const c = Number(arg('--c', '32'));
const streams = Number(arg('--streams', '1'));

const service = inferenceService().service;
const modelInfer = service.ModelInfer!;
const answer = { model_name: 'mlp_batched', model_version: '1', id: '', parameters: {}, outputs: [{ name: 'probabilities', datatype: 'FP32', shape: ['1', '10'], parameters: {} }], raw_output_contents: [Buffer.alloc(40)] };

async function main(): Promise<void> {
  ensureH2load();
  const grpcFile = join(tmpdir(), `inferscope-floor-grpc-${process.pid}.bin`);
  const httpFile = join(tmpdir(), `inferscope-floor-http-${process.pid}.bin`);
  writeFileSync(grpcFile, grpcInferBody('mlp_batched', benchInput));
  writeFileSync(httpFile, binaryRequest([benchInput], { binaryOutput: true }).body);

  const bare = Fastify();
  bare.removeAllContentTypeParsers();
  bare.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 << 20 }, (_r, body, done) => done(null, body));
  bare.post('/bare', (req, reply) => {
    const bytes = (req.body as Buffer).byteLength;
    setImmediate(() => void reply.send({ ok: true, bytes }));
  });
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  const grpcServer = new Server({ 'grpc.enable_channelz': 0 });
  const handlers: UntypedServiceImplementation = {};
  for (const name of Object.keys(service)) {
    handlers[name] = (call: { request: unknown }, callback: (err: null, res: unknown) => void) => {
      void call.request;
      setImmediate(() => callback(null, answer));
    };
  }
  grpcServer.addService(service, handlers);
  const grpcPort = await new Promise<number>((resolve, reject) => grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));

  const frame = grpcFrame(modelInfer.responseSerialize(answer));
  const h2 = http2.createServer();
  h2.on('stream', (stream) => {
    const chunks: Buffer[] = [];
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('end', () => {
      modelInfer.requestDeserialize(Buffer.concat(chunks).subarray(5));
      setImmediate(() => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frame);
      });
    });
  });
  await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
  const h2Port = (h2.address() as import('node:net').AddressInfo).port;

  const conns = String(Math.max(1, Math.round(c / streams)));
  const grpcArgs = (port: number) => ['-n', String(requests), '-c', conns, '-m', String(streams), '-t', '1', '-d', grpcFile, '-H', 'content-type: application/grpc', '-H', 'te: trailers', `http://127.0.0.1:${port}/inference.GRPCInferenceService/ModelInfer`];
  const runs: Array<[string, string[]]> = [
    ['bare Fastify, HTTP/1.1', ['--h1', '-n', String(requests), '-c', String(c), '-m', '1', '-t', '1', '-d', httpFile, '-H', 'content-type: application/octet-stream', `${bareUrl}/bare`]],
    ['bare grpc-js', grpcArgs(grpcPort)],
    ['bare node:http2 gRPC', grpcArgs(h2Port)],
  ];
  const cpu: Record<string, number[]> = {};
  try {
    console.log(`h2load, ${requests} requests per run, c=${c} (gRPC: ${conns} connections x ${streams} streams), ${rounds} rounds (the first is a warm-up)`);
    for (let round = 0; round <= rounds; round++) {
      for (const [name, args] of runs) {
        const cpu0 = process.cpuUsage();
        const r = await h2load(args);
        const used = process.cpuUsage(cpu0);
        if (r.succeeded !== requests) throw new Error(`${name}: ${r.succeeded}/${requests} succeeded`);
        if (round === 0) continue;
        const us = (used.user + used.system) / requests;
        (cpu[name] ??= []).push(us);
        console.log(`${round} | ${name} | ${r.req_per_s.toFixed(0)} req/s | server CPU ${us.toFixed(1)} µs/request`);
      }
    }
    for (const [name, xs] of Object.entries(cpu)) console.log(`${name}: median ${median(xs).toFixed(1)} µs/request`);
  } finally {
    grpcServer.forceShutdown();
    h2.close();
    await bare.close();
    rmSync(grpcFile, { force: true });
    rmSync(httpFile, { force: true });
  }
}

await main();
