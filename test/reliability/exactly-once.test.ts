/**
 * Every accepted request is answered exactly once, with ITS answer, while the server is changed under
 * load: 100 live reconfigurations, instance counts up and down, worker threads killed mid-batch, the model
 * unloaded and reloaded, and clients that disconnect mid-request.
 *
 * Client side: every request id gets one answer, the id is echoed, and a 200 carries the output for that
 * request's own input (a reference computed per version before the chaos), so answers cannot be swapped.
 * Server side (EventBus): every request.queued id has exactly one request.completed or request.rejected.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { SchedulerEvent } from '@inferscope/core';
import { startServer, tempRepository, type Running } from './harness.ts';
import { connectLive, control } from './live-client.ts';
import { mlpBody, type Body } from './load-tools.ts';
import '../support/test-hooks.ts';

const M = 'mlp_classifier';
let repo: Awaited<ReturnType<typeof tempRepository>>;
let server: Running;

before(async () => {
  repo = await tempRepository([M]);
  server = await startServer({ repositories: [repo.dir], controlMode: 'explicit', loadModels: ['*'] });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

/** Input k: every feature = k/10 (k in 0..9). Rows of one request share k. */
function body(id: string, k: number, rows: number): Body {
  const b = mlpBody(M, rows, id);
  const doc = JSON.parse(b.body.toString()) as { inputs: { data: number[] }[] };
  doc.inputs[0].data = new Array(rows * 784).fill(k / 10);
  return { ...b, body: Buffer.from(JSON.stringify(doc)) };
}

interface Answer {
  id: string;
  k: number;
  rows: number;
  status: number;
  echoed?: string;
  version?: string;
  data?: number[];
  error?: string;
}

async function ask(id: string, k: number, rows: number): Promise<Answer> {
  const b = body(id, k, rows);
  const res = await server.app.inject({ method: 'POST', url: b.url, headers: b.headers, payload: b.body });
  const doc = res.json() as { id?: string; model_version?: string; outputs?: { data: number[] }[]; error?: string };
  return { id, k, rows, status: res.statusCode, echoed: doc.id, version: doc.model_version, data: doc.outputs?.[0]?.data, error: doc.error };
}

const executorOf = (version: number) =>
  (server.manager as unknown as { entries: Map<string, { versions: Map<number, { loaded?: { executor: { workerOf(i: string): { crash(how: 'throw' | 'exit'): void; inFlight: number } | null; describe(): { instance: string; restarts: number }[] } } }> }> })
    .entries.get(M)?.versions.get(version)?.loaded?.executor;

/**
 * Sends a full request (to version 1; the other clients use the default version 2) over a socket and
 * closes the socket once the server has queued it, without reading the answer.
 */
function sendAndVanish(port: number, b: Body): Promise<void> {
  return new Promise((resolve) => {
    const off = server.bus.on((e) => {
      if (e.type === 'request.queued' && e.model === M && e.version === '1') done();
    });
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.write(`POST /v2/models/${M}/versions/1/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${b.body.byteLength}\r\n\r\n`);
      s.write(b.body);
    });
    // normally a few ms; the bound only matters while the model is unloaded (the request is refused, never queued)
    const timer = setTimeout(() => done(), 2_000);
    function done() {
      off();
      clearTimeout(timer);
      s.destroy();
      resolve();
    }
    s.on('error', () => done());
  });
}

test('exactly one answer per request under reconfiguration, instance changes, worker kills, unload/reload, vanishing clients', { timeout: 240_000 }, async () => {
  // References per version: the output of input k, one row.
  const ref = new Map<string, number[]>();
  for (const v of ['1', '2']) {
    for (let k = 0; k < 10; k++) {
      const b = body(`ref${v}${k}`, k, 1);
      const res = await server.app.inject({ method: 'POST', url: `/v2/models/${M}/versions/${v}/infer`, headers: b.headers, payload: b.body });
      assert.equal(res.statusCode, 200);
      ref.set(`${v}:${k}`, (res.json() as { outputs: { data: number[] }[] }).outputs[0].data);
    }
  }
  const mark = server.events.length;
  const { socket } = await connectLive(server.url);
  const answers: Answer[] = [];
  let sent = 0;
  let running = true;
  const clients = Array.from({ length: 6 }, async () => {
    while (running) {
      const i = sent++;
      answers.push(await ask(`t${i}`, i % 10, 1 + (i % 3)));
    }
  });
  let vanished = 0;
  const vanishing = (async () => {
    while (running) {
      await sendAndVanish(server.port, body(`gone${vanished}`, 3, 2));
      vanished++;
      await new Promise((r) => setTimeout(r, 15));
    }
  })();

  const acks: { what: string; ok: boolean; error?: string }[] = [];
  const act = async (what: string, msg: unknown) => {
    // generous: a reload on a starved 2-core machine can take tens of seconds, and a missing ack fails the test
    const a = await control(socket, msg, 120_000);
    acks.push({ what, ok: a.ok, error: a.ok ? undefined : a.error });
  };
  const phases: string[] = [];
  let tPhase = performance.now();
  const phase = (name: string) => {
    phases.push(`${name} ${((performance.now() - tPhase) / 1000).toFixed(1)}s`);
    tPhase = performance.now();
  };
  // 1) 100 live reconfigurations
  const preferred = [[4, 8], [8, 16, 32], [16], [2, 4, 8, 16]];
  for (let i = 0; i < 100; i++) {
    const patch = i % 3 === 0
      ? { max_queue_delay_microseconds: 100 + ((i * 337) % 5000) }
      : i % 3 === 1 ? { preferred_batch_size: preferred[i % preferred.length] } : { max_batch_size: i % 2 ? 32 : 64 };
    await act(`reconfig ${i}`, { action: 'setDynamicBatching', model: M, ...patch });
    if (i % 10 === 0) await new Promise((r) => setTimeout(r, 20));
  }
  phase('reconfig');
  // 2) instance counts up and down
  for (const count of [3, 1, 2]) {
    await act(`count ${count}`, { action: 'setInstanceCount', model: M, count });
    await new Promise((r) => setTimeout(r, 150));
  }
  phase('counts');
  // 3) kill worker threads of version 2 while batches run: the worker dies the way a crash does (an
  //    uncaught exception, or exit) with batches already handed to it. (A worker restarting has none to
  //    kill: retry.) Worker.terminate() from outside is not used: see worker-terminate.test.ts.
  //    The crash hook is armed while it has batches (inFlight > 0) and kills the thread in the next batch
  //    it takes: that batch's run fails, the ones already queued behind it never began and are re-sent to
  //    the restarted worker. A batch of two or more whose run failed is re-run in halves on the restarted
  //    worker (backends/isolate-failures.ts), so it may still succeed; a single-request batch fails.
  //    A next batch comes only while requests keep arriving, so it kills again until 4 kills hit a batch.
  let kills = 0;
  for (let i = 0; i < 2000 && kills < 4; i++) {
    const ex = executorOf(2);
    const inst = ex?.describe()[kills % 2]?.instance;
    const w = inst ? ex!.workerOf(inst) : null;
    if (w && w.inFlight > 0) {
      w.crash(kills % 2 === 0 ? 'throw' : 'exit');
      kills++;
      await new Promise((r) => setTimeout(r, 200));
    } else {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  phase('kills');
  // 4) unload and reload the model under traffic
  await act('unload', { action: 'unloadModel', model: M });
  await new Promise((r) => setTimeout(r, 200));
  await act('load', { action: 'loadModel', model: M });
  await new Promise((r) => setTimeout(r, 300));

  phase('unload+load');
  running = false;
  await Promise.all(clients);
  await vanishing;
  // Let the server finish what the vanished clients left in flight.
  await new Promise((r) => setTimeout(r, 500));
  socket.disconnect();

  // ---- client side
  assert.deepEqual(acks.filter((a) => !a.ok), [], 'every control action succeeded');
  assert.equal(answers.length, sent, 'every request sent got an answer');
  assert.equal(new Set(answers.map((a) => a.id)).size, sent, 'no request answered twice');
  const byStatus: Record<number, number> = {};
  for (const a of answers) {
    byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    if (a.status === 200) {
      assert.equal(a.echoed, a.id, 'the id is echoed');
      const r = ref.get(`${a.version}:${a.k}`)!;
      assert.ok(r, `version ${a.version}`);
      assert.equal(a.data!.length, a.rows * 10);
      for (let row = 0; row < a.rows; row++) {
        for (let j = 0; j < 10; j++) assert.ok(Math.abs(a.data![row * 10 + j] - r[j]) < 1e-4, `request ${a.id} got someone else's answer`);
      }
    } else {
      assert.ok([400, 404, 500, 503].includes(a.status), `status ${a.status}: ${a.error}`);
      assert.ok(a.error && a.error.length > 0);
    }
  }
  // ---- server side
  const events = server.events.slice(mark) as SchedulerEvent[];
  // Scheduler request ids restart when a model version is reloaded (a new scheduler), so an id is
  // followed through its lives: queued -> exactly one terminal event -> (maybe queued again after reload).
  const life = new Map<string, 'open' | 'closed'>();
  let queuedCount = 0;
  let terminal = 0;
  let queuedV1 = 0;
  const doubled: string[] = [];
  const reusedInFlight: string[] = [];
  for (const e of events) {
    if (e.type === 'request.queued') {
      queuedCount++;
      if (e.version === '1') queuedV1++;
      if (life.get(e.request_id) === 'open') reusedInFlight.push(e.request_id);
      life.set(e.request_id, 'open');
    } else if ((e.type === 'request.completed' || e.type === 'request.rejected') && life.has(e.request_id)) {
      terminal++;
      if (life.get(e.request_id) !== 'open') doubled.push(e.request_id);
      life.set(e.request_id, 'closed');
    }
  }
  const missing = [...life].filter(([, st]) => st === 'open').map(([id]) => id);
  const failedBatches = events.filter((e) => e.type === 'batch.completed' && !e.ok).length;
  console.log(
    `exactly-once: sent ${sent} (+${vanished} by clients that disconnected), answered ${answers.length}, statuses ${JSON.stringify(byStatus)}, ` +
      `server queued ${queuedCount}, terminal events ${terminal}, missing ${missing.length}, doubled ${doubled.length}; ` +
      `phases ${phases.join(', ')}; reconfigs 100, instance changes 3 (2->3->1->2), worker kills ${kills} (failed batches ${failedBatches}), unload+reload 1; requests of vanished clients queued (and completed) server-side ${queuedV1}`,
  );
  assert.deepEqual(missing, [], 'every queued request reached a terminal event');
  assert.deepEqual(doubled, [], 'no request answered twice server-side');
  assert.deepEqual(reusedInFlight, [], 'no request id reused while in flight');
  assert.ok(queuedV1 > 10, `clients vanished after their request was queued (${queuedV1})`);
  assert.ok(kills >= 4, `${kills} worker kills`);
  // (a kill counts only while the worker holds batches, so all 4 hit one; their requests are among
  // the answers checked above: each answered once, with its own output or an error)
  // 404s come only from the unload window, where each is answered at once and the clients fire again:
  // their number says how long the reload took, not how well the server served.
  assert.ok(byStatus[200] > (sent - (byStatus[404] ?? 0)) / 2, 'most requests sent while the model was loaded were served');
  assert.equal((await ask('final', 5, 1)).status, 200);
});

test('concurrent requests that reuse one client id still get their own answers', { timeout: 120_000 }, async () => {
  // independent of the test above: if it failed half-way the model may be unloaded
  if (!server.manager.isReady(M)) await server.manager.load(M);
  const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => ask('same-id', i % 10, 1)));
  const ref1 = await ask('r', 0, 1);
  for (const a of answers) {
    assert.equal(a.status, 200, a.error);
    assert.equal(a.echoed, 'same-id');
  }
  // Each answer matches the answer to the same input sent alone (inputs differ by k).
  for (let k = 0; k < 10; k++) {
    const alone = await ask(`alone${k}`, k, 1);
    for (const a of answers.filter((x) => x.k === k)) {
      assert.ok(a.data!.every((v, j) => Math.abs(v - alone.data![j]) < 1e-4), `an answer for input ${k} was swapped`);
    }
  }
  assert.equal(ref1.status, 200);
});
