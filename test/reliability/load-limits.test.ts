/**
 * Issue 13, item 1: a startLoad inside the validated limits must not exhaust the server. Before the fix,
 * `{scenario:"steady", rate:100000, duration:3600}` built 360 million arrivals up front (RSS 2.3 GB, then
 * a fatal V8 error that ended the process, and this test with it). Now plans are lazy streams with a
 * bounded total: what the limits forbid is refused with the reason before anything is built or sent,
 * and a long run that is accepted sends from its own thread in bounded memory while the server serves.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LOAD_LIMITS } from '@inferscope/core/load';
import { MiB, startServer, tempRepository, type Running } from './harness.ts';
import { connectLive, control } from './live-client.ts';

let server: Running;
let repo: Awaited<ReturnType<typeof tempRepository>>;
before(async () => {
  repo = await tempRepository(['mlp_classifier']);
  server = await startServer({ repositories: [repo.dir] });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

const rss = () => process.memoryUsage().rss;

async function serves(): Promise<void> {
  const r = await fetch(`${server.url}/v2/models/mlp_classifier/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'input', shape: [1, 784], datatype: 'FP32', data: new Array(784).fill(0.5) }] }),
  });
  assert.equal(r.status, 200, await r.text());
}

test('load plans the server cannot carry are refused with the reason, in bounded memory, and the server keeps serving', async () => {
  const { socket } = await connectLive(server.url);
  try {
    const rss0 = rss();
    const refusals: [unknown, RegExp][] = [
      // the report's message: 360,000,000 arrivals
      [{ action: 'startLoad', model: 'mlp_classifier', scenario: 'steady', rate: 100_000, duration: 3600 }, /peak rate is 100,000 requests\/s, above the 20,000\/s/],
      [{ action: 'startLoad', model: 'mlp_classifier', scenario: 'poisson', rate: 20_000, duration: 3600 }, /about 72,000,000 requests, more than the 5,000,000/],
      // the same class through scenario JSON, which has no rate or duration bounds of its own
      [{ action: 'startLoad', model: 'mlp_classifier', scenario: { name: 'long', phases: [{ type: 'constant', duration_s: 1e9, rate: 10 }] } }, /10,000,000,000 requests/],
      [{ action: 'startLoad', model: 'mlp_classifier', scenario: { name: 'ramp', phases: [{ type: 'ramp', duration_s: 3600, from: 0, to: 900_000 }] } }, /peak rate is 900,000/],
      [{ action: 'startLoad', model: 'mlp_classifier', scenario: { name: 'bursts', phases: [{ type: 'burst', duration_s: 3600, rate: 0, burst_size: 1e6, burst_every_s: 100 }] } }, /36,000,000 requests/],
    ];
    for (const [msg, reason] of refusals) {
      const t0 = performance.now();
      const ack = await control(socket, msg);
      assert.equal(ack.ok, false, JSON.stringify(msg));
      assert.match(String(!ack.ok && ack.error), reason);
      assert.ok(performance.now() - t0 < 5_000, 'refused at once, nothing generated');
    }
    assert.ok(rss() - rss0 < 64 * MiB, `RSS grew ${(rss() - rss0) / MiB} MiB while refusing`);
    assert.deepEqual(server.load.progress().filter((p) => p.state === 'running'), [], 'no run was started');
    await serves();
  } finally {
    socket.close();
  }
});

test('an accepted run of millions of requests streams its arrivals: memory stays bounded, every sent request is answered', async () => {
  const { socket } = await connectLive(server.url);
  try {
    // 2,000/s for 40 minutes: 4.8 million requests, inside the limits, more than this machine can serve
    const ack = await control(socket, { action: 'startLoad', model: 'mlp_classifier', scenario: 'poisson', rate: 2000, duration: 2400 });
    assert.equal(ack.ok, true, JSON.stringify(ack));
    const id = String((ack as Record<string, unknown>).id);
    const rss0 = rss();
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
    // run until the generator has sent a good many requests (or 20 s on a starved machine)
    const deadline = performance.now() + 20_000;
    while (performance.now() < deadline && (server.load.progress().find((p) => p.id === id)?.sent ?? 0) < 3000) await new Promise((r) => setTimeout(r, 100));
    await serves(); // an ordinary client is answered during the run
    assert.deepEqual((await control(socket, { action: 'stopLoad', id })).ok, true);
    const done = await server.load.wait(id);
    clearInterval(sampler);
    assert.equal(done.result.stopped, true);
    assert.ok(done.result.sent >= 500, `${done.result.sent} sent`);
    assert.equal(done.result.answered, done.result.sent, 'every request sent was answered');
    // Bounded by design, not by luck: at most max_in_flight (10,000) requests outstanding (each a 3 KB body,
    // a client request object and the server's side of it; seen +112-160 MiB when a starved server let it
    // fill up) plus the generator thread's own heap. The up-front list took 2.3 GB and then the process.
    const grown = (peak - rss0) / MiB;
    assert.ok(grown < 384, `RSS grew ${grown.toFixed(0)} MiB during the run`);
    await serves();
    console.log(`# load-limits: 5 plans refused; accepted run sent ${done.result.sent} (skipped ${done.result.skipped}, max in flight ${DEFAULT_LOAD_LIMITS.max_in_flight}) in ${done.result.elapsed_s.toFixed(1)} s, RSS +${grown.toFixed(0)} MiB at peak`);
  } finally {
    socket.close();
  }
});
