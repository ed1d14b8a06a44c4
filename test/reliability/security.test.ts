/**
 * Security: control needs the token when one is set (auth handshake or message field), binding beyond
 * loopback without a token is refused, path traversal in model names is refused everywhere a name
 * enters, body and header sizes are limited, and the token never appears in logs, acks or snapshots.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { checkBindSecurity, isLoopbackHost, tokenMatches } from '../../apps/server/src/control/security.ts';
import { MiB, startServer, tempRepository, type Running } from './harness.ts';
import { connectLive, control } from './live-client.ts';
import { postHead, rawRequest } from './raw-http.ts';

const TOKEN = 'tok-9f8e7d6c5b4a-S3CRET';
const M = 'mlp_classifier';
let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: Running;
const logs: string[] = [];
const captured: string[] = [];
let restore: () => void;

before(async () => {
  // Capture everything the process writes, as well as the server's own log sink.
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => (captured.push(String(chunk)), out(chunk as string, ...(rest as []))) ) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => (captured.push(String(chunk)), err(chunk as string, ...(rest as [])))) as typeof process.stderr.write;
  restore = () => {
    process.stdout.write = out;
    process.stderr.write = err;
  };
  repo = await tempRepository([M]);
  server = await startServer({ repositories: [repo.dir], controlMode: 'explicit', loadModels: ['*'], token: TOKEN, logs, bodyLimit: 1 * MiB, logRequests: true });
});
after(async () => {
  await server?.close();
  await repo?.remove();
  restore?.();
});

const delay = () => (server.manager.get(M)!.config.dynamic_batching as { max_queue_delay_microseconds?: number }).max_queue_delay_microseconds;

test('control without the right token is refused and changes nothing; with it, control works', { timeout: 120_000 }, async () => {
  const before = delay();
  const viewer = await connectLive(server.url);
  const wrong = await connectLive(server.url, TOKEN.slice(0, -1));
  const owner = await connectLive(server.url, TOKEN);
  try {
    assert.equal(viewer.snapshot.server.token_required, true);
    assert.equal(viewer.snapshot.server.can_control, false);
    assert.equal(owner.snapshot.server.can_control, true);
    for (const snap of [viewer.snapshot, owner.snapshot]) assert.ok(!JSON.stringify(snap).includes(TOKEN), 'the snapshot carries the token');
    const attempts: [string, Awaited<ReturnType<typeof connectLive>>, Record<string, unknown>][] = [
      ['no token', viewer, {}],
      ['wrong handshake token', wrong, {}],
      ['wrong message token', viewer, { token: 'guess' }],
      ['empty message token', viewer, { token: '' }],
      ['token of another type', viewer, { token: 12345 }],
      ['token prefix', viewer, { token: TOKEN.slice(0, 8) }],
      ['token with suffix', viewer, { token: TOKEN + 'x' }],
    ];
    for (const [label, client, extra] of attempts) {
      for (const msg of [
        { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 4242 },
        { action: 'unloadModel', model: M },
        { action: 'saveConfig', model: M },
        { action: 'startLoad', model: M, scenario: 'steady', duration: 1 },
      ]) {
        const ack = await control(client.socket, { ...msg, ...extra });
        assert.equal(ack.ok, false, `${label}: ${msg.action} accepted`);
        assert.match(!ack.ok ? ack.error : '', /token/);
      }
    }
    assert.equal(delay(), before, 'nothing changed');
    assert.equal(server.manager.get(M)?.state, 'READY');
    assert.equal(server.load.progress().length, 0);
    const ok = await control(owner.socket, { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 4242 });
    assert.equal(ok.ok, true);
    const viaMessage = await control(viewer.socket, { action: 'setDynamicBatching', model: M, max_queue_delay_microseconds: 4343, token: TOKEN });
    assert.equal(viaMessage.ok, true, 'the token may come with the message');
    assert.equal(delay(), 4343);
  } finally {
    for (const c of [viewer, wrong, owner]) c.socket.disconnect();
  }
});

test('binding beyond loopback without a token is refused', () => {
  for (const host of ['0.0.0.0', '::', '10.1.2.3', '192.168.0.10', '::ffff:10.0.0.1', 'example.com', '[::]']) {
    assert.throws(() => checkBindSecurity(host, undefined, false), /refusing to bind/, host);
    assert.throws(() => checkBindSecurity(host, '', false), /refusing to bind/, `${host} with an empty token`);
    assert.doesNotThrow(() => checkBindSecurity(host, TOKEN, false));
    assert.doesNotThrow(() => checkBindSecurity(host, undefined, true), 'explicit --allow-open-control');
  }
  for (const host of ['127.0.0.1', '127.9.9.9', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) {
    assert.equal(isLoopbackHost(host), true, host);
    assert.doesNotThrow(() => checkBindSecurity(host, undefined, false));
  }
  try {
    checkBindSecurity('0.0.0.0', undefined, false);
  } catch (err) {
    assert.ok(!(err as Error).message.includes(TOKEN));
  }
  assert.equal(tokenMatches(TOKEN, TOKEN), true);
  assert.equal(tokenMatches(TOKEN, TOKEN.toUpperCase()), false);
  assert.equal(tokenMatches(TOKEN, undefined), false);
  assert.equal(tokenMatches(TOKEN, { toString: () => TOKEN }), false, 'only strings count');
});

test('the serve command refuses a non-loopback bind without a token, and never listens', { timeout: 90_000 }, async () => {
  const { spawn } = await import('node:child_process');
  const { ROOT } = await import('./harness.ts');
  const env = { ...process.env };
  delete env.INFERSCOPE_CONTROL_TOKEN;
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/cli/main.ts', 'serve', '--model-repository', 'model_repository', '--host', '0.0.0.0', '--http-port', '0', '--no-metrics'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 75_000); // it normally exits within a few seconds; starting tsx on a starved machine can take tens
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  assert.notEqual(code, null, `serve kept running: ${output}`);
  assert.notEqual(code, 0);
  assert.match(output, /refusing to bind 0\.0\.0\.0/);
});

test('path traversal in model names is refused on every entry point', { timeout: 120_000 }, async () => {
  const names = ['..', '../mlp_classifier', '..%2Fmlp_classifier', '%2e%2e', 'a/../../etc', '..\\mlp_classifier', 'mlp_classifier%00', '%2Fetc%2Fpasswd'];
  for (const n of names) {
    const res = await server.app.inject({ method: 'POST', url: `/v2/models/${n}/infer`, payload: { inputs: [] } });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, `infer ${n}: ${res.statusCode}`);
    const decoded = decodeURIComponent(n);
    await assert.rejects(server.manager.load(decoded), /not a valid model name|not found|invalid|model name/i, `load ${decoded}`);
    await assert.rejects(server.manager.unload(decoded), /./, `unload ${decoded}`);
    for (const op of ['load', 'unload']) {
      const r = await server.app.inject({ method: 'POST', url: `/v2/repository/models/${n}/${op}`, payload: {}, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.ok(r.statusCode >= 400 && r.statusCode < 500, `repository ${op} ${n}: ${r.statusCode}`);
      assert.equal(typeof (r.json() as { error?: unknown }).error, 'string');
    }
  }
  assert.equal(server.manager.get(M)?.state, 'READY', 'nothing was unloaded');
  const owner = await connectLive(server.url, TOKEN);
  try {
    for (const n of ['..', '../x', 'a/b', '..\\x', 'x\u0000']) {
      for (const action of ['loadModel', 'unloadModel', 'saveConfig']) {
        const ack = await control(owner.socket, { action, model: n });
        assert.equal(ack.ok, false, `${action} ${JSON.stringify(n)}`);
      }
    }
    for (const t of ['../x.ndjson', '/etc/passwd', '..', 'a/b.ndjson']) {
      const ack = await control(owner.socket, { action: 'startReplay', trace: t });
      assert.equal(ack.ok, false, `replay ${t}`);
    }
  } finally {
    owner.socket.disconnect();
  }
});

test('request body and header sizes are limited; the server keeps serving', { timeout: 120_000 }, async () => {
  const big = await server.app.inject({ method: 'POST', url: `/v2/models/${M}/infer`, headers: { 'content-type': 'application/json' }, payload: Buffer.alloc(MiB + 1, 0x20) });
  assert.equal(big.statusCode, 400);
  assert.match((big.json() as { error: string }).error, /exceeds the maximum allowed input size/);
  const head = await rawRequest(server.port, postHead(`/v2/models/${M}/infer`, { 'X-Big': 'h'.repeat(64 * 1024), 'Content-Length': '2' }), Buffer.from('{}'));
  assert.equal(head.status, 431);
  const many = await rawRequest(server.port, postHead(`/v2/models/${M}/infer`, { ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`X-H${i}`, 'v'])), 'Content-Length': '2' }), Buffer.from('{}'));
  assert.ok(many.status === 431 || many.status === 400, `many headers: ${many.status}`);
  const ok = await server.app.inject({ method: 'POST', url: `/v2/models/${M}/infer`, payload: { inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: new Array(784).fill(0) }] } });
  assert.equal(ok.statusCode, 200);
});

test('the token never appears in logs or acks', { timeout: 120_000 }, async () => {
  // Failures that log: a refused control, a failing control with the token in the message, a bad load.
  const viewer = await connectLive(server.url, 'not-the-token');
  const owner = await connectLive(server.url, TOKEN);
  try {
    const acks = [
      await control(viewer.socket, { action: 'loadModel', model: 'nope', token: TOKEN + 'x' }),
      await control(owner.socket, { action: 'loadModel', model: 'no_such_model', token: TOKEN }),
      await control(owner.socket, { action: 'setInstanceCount', model: M, count: 999, token: TOKEN }),
      await control(owner.socket, { action: 'bogus', token: TOKEN }),
    ];
    for (const a of acks) assert.ok(!JSON.stringify(a).includes(TOKEN), `ack leaks the token: ${JSON.stringify(a)}`);
  } finally {
    viewer.socket.disconnect();
    owner.socket.disconnect();
  }
  await new Promise((r) => setTimeout(r, 100));
  const all = [...logs, ...captured].join('\n');
  assert.ok(logs.length > 0, 'the server logged something');
  assert.ok(!all.includes(TOKEN), 'the token is in the logs');
  assert.ok(!all.includes(TOKEN.slice(4, 16)), 'part of the token is in the logs');
});
