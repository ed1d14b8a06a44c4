// The unary calls the gRPC endpoint answers straight from the HTTP/2 stream (grpc/direct-unary.ts): a
// grpc-js server with Triton's service definition and small handlers, a real grpc-js client and a bare
// node:http2 client for what grpc-js will not send (two messages, none, a bad prefix, a bad timeout).
// Each protocol edge is answered as grpc-js answers it; compressed requests and streams still reach grpc-js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session } from 'node:http2';
import { Metadata, ServerCredentials, status, type Server, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { newGrpcServer } from '../../apps/server/src/grpc/server';
import { inferenceServiceDefinition } from '../../apps/server/src/grpc/proto';
import { answerUnaryDirectly, grpcFrame } from '../../apps/server/src/grpc/direct-unary';
import { InflightBytes } from '../../apps/server/src/infer/inflight-bytes';
import { MessageStallWatch } from '../../apps/server/src/grpc/message-stall';
import { grpcClient, type TestGrpcClient } from './client';

const MAX = 4096;
const definition = inferenceServiceDefinition();
const inferPath = definition.ModelInfer.path;

type Call = ServerUnaryCall<{ model_name: string; id: string }, unknown> & { cancelled: boolean; on(e: 'cancelled', fn: () => void): unknown };

/** what the handlers saw: which path carried each call, and whether a held call was told it was cancelled */
const seen: Array<{ model: string; direct: boolean }> = [];
const held = new Map<string, { cancelled: Promise<boolean> }>();

const handlers: UntypedServiceImplementation = {
  ServerLive: (_call: unknown, cb: (e: null, v: unknown) => void) => cb(null, { live: true }),
  ModelInfer: (call: Call, cb: (e: object | null, v?: unknown) => void) => {
    const model = call.request.model_name;
    // grpc-js's own ServerUnaryCall has getPath(); the direct call does not
    seen.push({ model, direct: typeof (call as unknown as { getPath?: unknown }).getPath !== 'function' });
    if (model === 'hold') {
      // never answered: the call ends by its deadline or the client's cancel
      held.set(call.request.id, { cancelled: new Promise((resolve) => call.on('cancelled', () => resolve(call.cancelled))) });
      return;
    }
    if (model === 'throw') throw new Error('handler bug');
    if (model === 'slow') return void setTimeout(() => cb(null, { model_name: model }), 30);
    if (model === 'refuse') return cb({ code: status.INVALID_ARGUMENT, details: "unexpected shape for input 'x' of model 'ünï', 50% off" });
    if (model === 'token') return cb(null, { model_name: String(call.metadata.get('authorization')[0] ?? '') });
    cb(null, { model_name: model, id: call.request.id, raw_output_contents: [Buffer.from([1, 2, 3])] });
  },
};

let server: Server;
let address: string;
let client: TestGrpcClient;
let taken = 0;

before(async () => {
  server = newGrpcServer(MAX); // as the endpoint builds it
  server.addService(definition, handlers);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  address = `127.0.0.1:${port}`;
  taken = answerUnaryDirectly(server, definition, handlers, { maxReceiveBytes: MAX, inflight: new InflightBytes(1 << 30), stall: new MessageStallWatch(60_000) });
  client = grpcClient(address);
});

after(async () => {
  client?.close();
  server?.forceShutdown();
});

function infer(req: object, options: { deadline?: number; metadata?: Metadata } = {}): Promise<{ code: number; details: string; res?: { model_name: string; id: string; raw_output_contents: Buffer[] } }> {
  return new Promise((resolve) => {
    client.raw.ModelInfer(req, options.metadata ?? new Metadata(), { deadline: options.deadline }, (err: { code: number; details: string } | null, res: never) =>
      resolve(err ? { code: err.code, details: err.details } : { code: status.OK, details: '', res }));
  });
}

/** one POST over bare HTTP/2: the given body bytes as they are, the answer's status and messages */
async function rawCall(body: Buffer[], headers: Record<string, string> = {}): Promise<{ status: number; message: string; frames: number }> {
  const session: ClientHttp2Session = connect(`http://${address}`);
  session.on('error', () => {});
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': inferPath, 'content-type': 'application/grpc', te: 'trailers', ...headers });
      let trailers: Record<string, unknown> = {};
      let frames = 0;
      stream.on('response', (h) => (trailers = h));
      stream.on('trailers', (t) => (trailers = t));
      stream.on('data', () => frames++);
      stream.on('error', reject);
      stream.on('close', () => resolve({ status: Number(trailers['grpc-status']), message: decodeURI(String(trailers['grpc-message'] ?? '')), frames }));
      for (const b of body) stream.write(b);
      stream.end();
    });
  } finally {
    session.close();
  }
}

const framed = (message: Buffer, flag = 0) => {
  const frame = grpcFrame(message);
  frame[0] = flag;
  return frame;
};
const request = (model: string, id = '') => definition.ModelInfer.requestSerialize({ model_name: model, id });

test('every unary method of the listening server is answered directly, with the messages grpc-js would decode', async () => {
  assert.equal(taken, 1, 'the one HTTP/2 listener of the server is taken');
  assert.deepEqual(await client.call('ServerLive'), { live: true });
  const { code, res } = await infer({ model_name: 'm', id: 'r1' });
  assert.equal(code, status.OK);
  assert.equal(res!.model_name, 'm');
  assert.equal(res!.id, 'r1');
  assert.deepEqual([...res!.raw_output_contents[0]], [1, 2, 3]);
  assert.deepEqual(seen.at(-1), { model: 'm', direct: true });
});

test('errors: the handler status with its details intact, a throwing handler is UNKNOWN, and the server goes on', async () => {
  assert.deepEqual(await infer({ model_name: 'refuse' }), { code: status.INVALID_ARGUMENT, details: "unexpected shape for input 'x' of model 'ünï', 50% off" });
  assert.deepEqual(await infer({ model_name: 'throw' }), { code: status.UNKNOWN, details: 'Unknown error' });
  assert.equal((await infer({ model_name: 'after' })).code, status.OK);
});

test('metadata reaches the handler (what the control guard reads)', async () => {
  const md = new Metadata();
  md.set('authorization', 'Bearer s3cret');
  assert.equal((await infer({ model_name: 'token' }, { metadata: md })).res!.model_name, 'Bearer s3cret');
});

test('a deadline that passes answers DEADLINE_EXCEEDED and cancels the call; a client cancel cancels it too', async () => {
  const late = await infer({ model_name: 'hold', id: 'd1' }, { deadline: Date.now() + 100 });
  assert.equal(late.code, status.DEADLINE_EXCEEDED);
  assert.equal(await held.get('d1')!.cancelled, true);

  const call = client.raw.ModelInfer({ model_name: 'hold', id: 'c1' }, () => {});
  while (!held.has('c1')) await new Promise((r) => setTimeout(r, 5));
  call.cancel();
  assert.equal(await held.get('c1')!.cancelled, true);
});

test('framing: too large, two messages, none, a compressed flag without an encoding, bytes that do not decode, a bad or far timeout', async () => {
  const big = await rawCall([framed(Buffer.alloc(MAX + 1))]);
  assert.equal(big.status, status.RESOURCE_EXHAUSTED);
  assert.match(big.message, /larger than max \(4097 vs 4096\)/);
  const two = await rawCall([framed(request('a')), framed(request('b'))]);
  assert.equal(two.status, status.UNIMPLEMENTED);
  assert.match(two.message, /second request message/);
  assert.equal((await rawCall([])).status, status.UNIMPLEMENTED);
  assert.equal((await rawCall([framed(request('a')).subarray(0, 7)])).status, status.UNIMPLEMENTED, 'a message cut short');
  assert.equal((await rawCall([framed(request('a'), 1)])).status, status.INTERNAL);
  assert.equal((await rawCall([framed(Buffer.from([0x0a, 0xff]))])).status, status.INTERNAL);
  assert.equal((await rawCall([framed(request('a'))], { 'grpc-timeout': 'soon' })).status, status.INTERNAL);
  // a timeout longer than a timer holds (grpc-js truncates it to 32 bits, which can fall due at once)
  for (const far of ['2147484S', '99999999H']) {
    assert.equal((await rawCall([framed(request('slow'))], { 'grpc-timeout': far })).status, status.OK, far);
  }
  // a message split across writes is put back together
  const whole = framed(request('split', 's1'));
  const split = await rawCall([whole.subarray(0, 3), whole.subarray(3, 9), whole.subarray(9)]);
  assert.equal(split.status, status.OK);
  assert.equal(split.frames > 0, true);
  assert.deepEqual(seen.at(-1), { model: 'split', direct: true });
});

test('a deadline 30 days away holds on both paths (grpc-js alone truncates it to 32 bits and answers DEADLINE_EXCEEDED at once)', async () => {
  const far = Date.now() + 30 * 24 * 3600 * 1000;
  assert.equal((await infer({ model_name: 'slow' }, { deadline: far })).code, status.OK, 'answered directly');
  const gz = grpcClient(address, { 'grpc.default_compression_algorithm': 2 });
  try {
    const code = await new Promise<number>((resolve) => gz.raw.ModelInfer({ model_name: 'slow' }, new Metadata(), { deadline: far }, (e: { code: number } | null) => resolve(e ? e.code : status.OK)));
    assert.equal(code, status.OK, 'answered by grpc-js');
    assert.deepEqual(seen.at(-1), { model: 'slow', direct: false });
  } finally {
    gz.close();
  }
});

test('a compressed request is left to grpc-js, which answers it', async () => {
  const gz = grpcClient(address, { 'grpc.default_compression_algorithm': 2 });
  try {
    const res = await new Promise<{ model_name: string }>((resolve, reject) => gz.raw.ModelInfer({ model_name: 'gzipped' }, (e: Error | null, r: { model_name: string }) => (e ? reject(e) : resolve(r))));
    assert.equal(res.model_name, 'gzipped');
    assert.deepEqual(seen.at(-1), { model: 'gzipped', direct: false });
  } finally {
    gz.close();
  }
});
