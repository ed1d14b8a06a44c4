/**
 * The autotuner on the real server (port 0): a model whose config declares autotune_p99_ms loads READY and
 * shows the parameter; under traffic (a bounded loop of load runs) its decisions appear as config.changed
 * events by 'autotune' with their reason, in the live stream and the model's snapshot; the control channel
 * switches it, under the same token rule as every live change. Asserts on events, never on timings.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigChangedEvent, ControlAck, Frame, Snapshot, StatsMessage } from '@inferscope/core';
import { DWELL_US } from '@inferscope/core/autotune';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';
import { connectSocket } from '../support/socket.ts';
import { next } from './fake-server.ts';

const TOKEN = 'tune-s3cret';
let server: TestServer;
let repo: Awaited<ReturnType<typeof tempRepository>>;

before(async () => {
  repo = await tempRepository(['mlp_classifier'], 'is-autotune-');
  const file = join(repo.dir, 'mlp_classifier', 'config.pbtxt');
  const text = (await readFile(file, 'utf8')).replace('count: 2', 'count: 1');
  await writeFile(file, `${text}\nparameters { key: "autotune_p99_ms" value: { string_value: "3" } }\n`);
  server = await startTestServer({ modelRepositories: [repo.dir], controlToken: TOKEN });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

const control = (socket: import('socket.io-client').Socket, msg: unknown) => socket.timeout(10_000).emitWithAck('control', msg) as Promise<ControlAck & Record<string, unknown>>;
const tunerChanges = () => server.events.filter((e): e is ConfigChangedEvent => e.type === 'config.changed' && e.by === 'autotune' && e.version === '2');

test('loads READY and shows the parameter in its config', async () => {
  const res = await fetch(`${server.url}/v2/models/mlp_classifier/versions/2/ready`);
  assert.equal(res.status, 200);
  const config = (await (await fetch(`${server.url}/v2/models/mlp_classifier/config`)).json()) as { parameters: Record<string, { string_value: string }> };
  assert.deepEqual(config.parameters.autotune_p99_ms, { string_value: '3' });
  // the statistics extension says the version is autotuned, and to what target
  const stats = (await (await fetch(`${server.url}/v2/models/mlp_classifier/versions/2/stats`)).json()) as { model_stats: { autotune?: { enabled: boolean; target_us: number } }[] };
  assert.deepEqual([stats.model_stats[0].autotune?.enabled, stats.model_stats[0].autotune?.target_us], [true, 3000]);
});

test('under traffic the tuner decides: config.changed by autotune with its reason, in the stream and the snapshot', async () => {
  const c = await connectSocket(server.url, { token: TOKEN });
  try {
    const streamed = new Promise<ConfigChangedEvent>((resolve) => c.on('frame', (f: Frame) => {
      const e = f.events.find((x): x is ConfigChangedEvent => x.type === 'config.changed' && x.by === 'autotune' && (x.reason?.rate_per_s ?? 0) > 0);
      if (e) resolve(e);
    }));
    // The declared 3 ms can be out of reach on a loaded test machine (delay 0 measured p99 4-9 ms at
    // 300/s here), where the tuner rightly keeps the smallest delay: a generous target makes the
    // decision from measured traffic certain, whatever the machine's latency.
    const widened = await control(c, { action: 'setAutotune', model: 'mlp_classifier', version: '2', enabled: true, target_ms: 200, token: TOKEN });
    assert.equal(widened.ok, true, JSON.stringify(widened));
    // a decision from measured traffic that moves the delay (the tuner may first make its proposal to clear
    // the preferred sizes, a dwell before its next change)
    const delayPath = 'dynamic_batching.max_queue_delay_microseconds';
    const movesDelay = (e: ConfigChangedEvent) => (e.reason?.rate_per_s ?? 0) > 0 && e.changes.some((x) => x.path === delayPath);
    // bounded: at most 8 runs of 2 s; stop as soon as one is seen
    for (let i = 0; i < 8 && !tunerChanges().some(movesDelay); i++) {
      const start = await control(c, { action: 'startLoad', model: 'mlp_classifier', version: '2', scenario: 'poisson', rate: 300, duration: 2, mode: 'inprocess', token: TOKEN });
      assert.equal(start.ok, true, JSON.stringify(start));
      await server.built.live!.load.wait(start.id as string);
    }
    const changes = tunerChanges();
    // the shipped 2 ms is below the target: kept until measured; preferred sizes change only after a proposal
    assert.ok(changes.every((e) => !e.changes.some((x) => x.path === 'dynamic_batching.preferred_batch_size') || /proposed/.test(e.reason?.why ?? '')), JSON.stringify(changes));
    const measured = changes.find(movesDelay);
    assert.ok(measured, JSON.stringify(changes));
    assert.equal(measured.reason!.target_us, 200_000);
    assert.ok(measured.changes.some((x) => Number(x.new) > Number(x.old)), `a reachable target lets the delay grow: ${JSON.stringify(changes)}`);
    assert.ok(measured.changes.every((x) => x.path === delayPath));
    // at most one change per dwell
    for (let i = 1; i < changes.length; i++) assert.ok(changes[i].t - changes[i - 1].t >= DWELL_US * 0.9, JSON.stringify(changes.map((e) => e.t)));
    const ev = await streamed;
    // the status rides the stats messages (it moves without a config change)
    const stats = await new Promise<StatsMessage>((resolve) => c.on('stats', (m: StatsMessage) => { if (m.autotune?.some((a) => a.version === '2')) resolve(m); }));
    const entry = stats.autotune!.find((a) => a.model === 'mlp_classifier' && a.version === '2')!;
    assert.equal(entry.enabled, true);
    assert.match(entry.text, /^autotune: (measuring|target met|holding|target not met)/);
    assert.ok(ev.reason && ev.reason.avg_batch >= 0);
    const snap = next<Snapshot>(c, 'snapshot');
    c.emit('resync');
    const m = (await snap).models.find((x) => x.name === 'mlp_classifier' && x.version === '2');
    assert.equal(m?.autotune?.enabled, true);
    assert.equal(m?.autotune?.target_us, 200_000);
    // the status the panel shows, and its line
    assert.ok(['measuring', 'met', 'holding', 'not_met'].includes(m?.autotune?.status.state ?? ''), JSON.stringify(m?.autotune));
    assert.match(m?.autotune?.text ?? '', /^autotune: /);
  } finally {
    c.close();
  }
});

test('control switches it, guarded by the token; a bad target is refused', async () => {
  const viewer = await connectSocket(server.url);
  const owner = await connectSocket(server.url, { token: TOKEN });
  try {
    const refused = await control(viewer, { action: 'setAutotune', model: 'mlp_classifier', version: '2', enabled: false });
    assert.equal(refused.ok, false);
    assert.match(String((refused as { error: string }).error), /token/);
    const bad = await control(owner, { action: 'setAutotune', model: 'mlp_classifier', version: '2', enabled: true, target_ms: -1, token: TOKEN });
    assert.equal(bad.ok, false);
    const off = await control(owner, { action: 'setAutotune', model: 'mlp_classifier', version: '2', enabled: false, token: TOKEN });
    assert.equal(off.ok, true, JSON.stringify(off));
    assert.equal((off.autotune as { enabled: boolean }).enabled, false);
    // unticking restores the batching it found (the previous test's traffic made it move the delay) and says so
    const status = (off.autotune as { status: { state: string } }).status;
    assert.ok(status.state === 'restored' || status.state === 'off', JSON.stringify(off.autotune));
    if (status.state === 'restored') assert.match((off.autotune as { text: string }).text, /restored delay 2 ms/);
    const config = (await (await fetch(`${server.url}/v2/models/mlp_classifier/versions/2/config`)).json()) as { dynamic_batching: { max_queue_delay_microseconds: number; preferred_batch_size: number[] } };
    assert.equal(Number(config.dynamic_batching.max_queue_delay_microseconds), 2000);
    assert.deepEqual(config.dynamic_batching.preferred_batch_size.map(Number), [8, 16, 32]);
    const on = await control(owner, { action: 'setAutotune', model: 'mlp_classifier', version: '2', enabled: true, target_ms: 1.5, token: TOKEN });
    assert.equal(on.ok, true, JSON.stringify(on));
    assert.deepEqual([(on.autotune as { enabled: boolean }).enabled, (on.autotune as { target_us: number }).target_us], [true, 1500]);
  } finally {
    viewer.close();
    owner.close();
  }
});
