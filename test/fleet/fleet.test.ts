/**
 * A fleet on this machine with real parts (Debian's HAProxy and Prometheus, three InferScope replica
 * processes): a replica killed under load loses only what was in flight on it, the balancer stops routing
 * to it within its health-check interval and routes to it again when it is back; the autoscaling signal,
 * evaluated by the real Prometheus, rises under overload and falls after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startFleet, type Fleet } from '../../apps/server/src/fleet/fleet.ts';
import { queuePressureQuery } from '../../apps/server/src/fleet/queue-pressure.ts';
import { io } from 'socket.io-client';
import { imageBody } from '../reliability/load-tools.ts';
import { DEMO_REPO } from '../support/server.ts';
import { perf } from '../../apps/server/src/cli/commands/perf.ts';
import { chromiumMissing, launchBrowser, screenshot, watchConsole } from '../e2e/browser.ts';
import { ensureWebBuilt, WEB_DIST } from '../e2e/server-under-test.ts';

const missing = ['haproxy', 'prometheus'].filter((b) => spawnSync(b, ['--version']).error);
const MODEL = 'cnn_classifier';

interface Tally { sent: number; ok: number; failed: number; statuses: Map<number, number>; failures: string[] }

/** `clients` closed-loop clients through the balancer until `until()` says stop; every answer counted. */
async function drive(url: string, clients: number, until: () => boolean, tally: Tally, images = 1): Promise<void> {
  const body = imageBody(MODEL, images, 'fleet');
  await Promise.all(Array.from({ length: clients }, async () => {
    while (!until()) {
      tally.sent++;
      try {
        const res = await fetch(url + body.url, { method: 'POST', headers: body.headers, body: new Uint8Array(body.body), signal: AbortSignal.timeout(30_000) });
        const text = await res.arrayBuffer();
        tally.statuses.set(res.status, (tally.statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) tally.ok++;
        else {
          tally.failed++;
          tally.failures.push(`${res.status} ${Buffer.from(text).toString('utf8').slice(0, 120)}`);
        }
      } catch (err) {
        tally.failed++;
        tally.failures.push(`client error: ${(err as Error).message} ${String((err as any).cause?.code ?? (err as any).cause?.message ?? "")}`);
      }
    }
  }));
}

const newTally = (): Tally => ({ sent: 0, ok: 0, failed: 0, statuses: new Map(), failures: [] });

async function backendStatus(fleet: Fleet, name: string): Promise<string> {
  const csv = await (await fetch(fleet.statsUrl + ';csv')).text();
  const header = csv.split('\n')[0].replace(/^# /, '').split(',');
  const statusCol = header.indexOf('status');
  const row = csv.split('\n').find((l) => l.startsWith(`replicas,${name},`));
  return row ? row.split(',')[statusCol] : 'absent';
}

async function waitFor(what: string, cond: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (await cond()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

async function successCount(replicaUrl: string): Promise<number> {
  const s = (await (await fetch(`${replicaUrl}/v2/models/${MODEL}/stats`)).json()) as any;
  return s.model_stats.reduce((n: number, m: any) => n + m.inference_stats.success.count, 0);
}

async function promQuery(fleet: Fleet, q: string): Promise<number | null> {
  const res = (await (await fetch(`${fleet.prometheusUrl}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as any;
  const v = res.data?.result?.[0]?.value?.[1];
  return v === undefined || v === 'NaN' ? null : Number(v);
}

test('fleet: replicas behind HAProxy, one killed under load, Prometheus autoscaling signal', { skip: missing.length ? `not installed: ${missing.join(', ')} (Debian packages)` : false, timeout: 300_000 }, async (t) => {
  ensureWebBuilt();
  const fleet = await startFleet({
    replicas: 3,
    modelRepositories: [DEMO_REPO],
    serveArgs: ['--model-control-mode', 'explicit', '--load-model', MODEL, '--web-dist', WEB_DIST],
    checkIntervalMs: 300,
    scrapeIntervalSec: 1,
    pressureWindow: '5s',
    log: () => {},
  });
  try {
    await t.test('a killed replica fails only its in-flight requests; the balancer routes around it and back', async () => {
      const clients = 12;
      let phase: 'before' | 'after' | 'stop' = 'before';
      const before = newTally();
      const after = newTally();
      const load = drive(fleet.url, clients, () => phase !== 'before', before);
      await waitFor('traffic on every replica', async () => (await Promise.all(fleet.replicas.map((r) => successCount(r.url)))).every((n) => n > 5), 60_000);
      await fleet.killReplica(1);
      const downMs = await waitFor('HAProxy marks replica-1 DOWN', async () => (await backendStatus(fleet, 'replica-1')).startsWith('DOWN'), 10_000);
      phase = 'after';
      await load;
      // Once it is out of rotation, every request is answered by the other two.
      const load2 = drive(fleet.url, clients, () => phase === 'stop', after);
      await new Promise((r) => setTimeout(r, 1500));
      phase = 'stop';
      await load2;

      assert.equal(before.sent, before.ok + before.failed, 'every request sent before the kill has one outcome');
      assert.ok(before.failed <= clients, `at most the requests in flight fail (${before.failed}: ${before.failures.slice(0, 3).join(' | ')})`);
      // HAProxy answers 502 for a request whose replica died, or closes the client connection when the
      // request went out on a connection it had reused: either way the client knows at once.
      for (const f of before.failures) assert.match(f, /^50[234] |UND_ERR_SOCKET|ECONNRESET/, 'a failure is immediate and explicit');
      assert.ok(after.sent > 20, `load continued (${after.sent})`);
      assert.equal(after.failed, 0, `after the balancer noticed, nothing fails: ${after.failures.slice(0, 3).join(' | ')}`);
      assert.ok(downMs < fleet.checkIntervalMs * 2 + 5000, `taken out within the health-check interval (${downMs} ms)`);

      await fleet.restartReplica(1);
      await waitFor('HAProxy marks replica-1 UP again', async () => (await backendStatus(fleet, 'replica-1')).startsWith('UP'), 30_000);
      const base = await successCount(fleet.replicas[1].url);
      const back = newTally();
      let stop = false;
      const load3 = drive(fleet.url, 6, () => stop, back);
      await waitFor('the restarted replica serves again', async () => (await successCount(fleet.replicas[1].url)) > base + 5, 30_000);
      stop = true;
      await load3;
      assert.equal(back.failed, 0, back.failures.slice(0, 3).join(' | '));
    });

    await t.test('the queue-pressure query rises under overload and falls after it', async () => {
      const q = queuePressureQuery('5s');
      const sample = async () => (await promQuery(fleet, q)) ?? NaN;
      const light = async () => {
        let stop = false;
        const run = drive(fleet.url, 1, () => stop, newTally(), 4);
        await new Promise((r) => setTimeout(r, 8000));
        const v = await sample();
        stop = true;
        await run;
        return v;
      };
      // Light: one client of 4-image requests (a preferred size): each is sent at once. Overload: 64
      // closed-loop clients on EVERY replica from its own load generator thread (a client in this test
      // process cannot outrun three servers), so requests queue behind running batches whatever the
      // machine's speed; closed loop keeps the backlog at 64, so it drains the moment the load stops.
      const before = await light();
      let heavy = NaN;
      const sockets = fleet.replicas.map((r) => io(r.url, { transports: ['websocket'], reconnection: false }));
      try {
        const acks = await Promise.all(sockets.map((sk) => sk.timeout(30_000).emitWithAck('control',
          { action: 'startLoad', model: MODEL, scenario: 'closed-loop', concurrency: 64, duration: 8 }) as Promise<{ ok: boolean; error?: string }>));
        for (const a of acks) assert.equal(a.ok, true, JSON.stringify(a));
        await new Promise((r) => setTimeout(r, 7000));
        heavy = await sample();
        await Promise.all(sockets.map((sk) => sk.timeout(30_000).emitWithAck('control', { action: 'stopLoad' })));
      } finally {
        for (const sk of sockets) sk.close();
      }
      const after = await light();
      assert.ok(Number.isFinite(before) && Number.isFinite(heavy) && Number.isFinite(after), `samples ${before} ${heavy} ${after}`);
      assert.ok(heavy > Math.max(4 * before, before + 2000), `rises under overload: ${before.toFixed(0)} -> ${heavy.toFixed(0)} µs`);
      assert.ok(after < heavy / 2, `falls after it: ${heavy.toFixed(0)} -> ${after.toFixed(0)} µs`);
      // The recorded rule (what the fleet's Grafana and the HPA read) is there too.
      assert.ok(Number.isFinite((await promQuery(fleet, 'inferscope_queue_time_per_request_us')) ?? NaN));
      console.log(`queue pressure: light ${before.toFixed(0)} µs, overload ${heavy.toFixed(0)} µs, after ${after.toFixed(0)} µs`);
    });

    await t.test('perf through the balancer reports the server statistics of every replica, summed', async () => {
      const served = async () => Promise.all(fleet.replicas.map(async (r) => {
        const doc = (await (await fetch(`${r.url}/v2/models/${MODEL}/stats`)).json()) as { model_stats: Array<{ inference_stats: { success: { count: number } } }> };
        return doc.model_stats.reduce((n, m) => n + m.inference_stats.success.count, 0);
      }));
      const before = await served();
      const lines: string[] = [];
      const code = await perf(['-m', MODEL, '-u', fleet.url, '--concurrency-range', '6', '--measurement-interval', '1500', '--max-trials', '3'], (x) => lines.push(x), () => {});
      const text = lines.join('\n');
      assert.equal(code, 0, text);
      const after = await served();
      const deltas = after.map((n, i) => n - before[i]);
      assert.ok(deltas.filter((n) => n > 0).length >= 2, `the balancer spread perf's requests: ${deltas.join(', ')}`);
      assert.match(text, new RegExp(`Server statistics: the sum of ${fleet.replicas.length} replicas behind the balancer`));
      // the measured windows: what the client counted and what the summed server statistics counted
      const client = Number(/Client: \n\s+Request count: (\d+)/.exec(text)?.[1]);
      const server = Number(/Successful request count: (\d+)/.exec(text)?.[1]);
      assert.ok(client > 0 && server > 0, text);
      // One replica's statistics would show about 1/3 of the client's count (and never more than the
      // largest replica's share); the sum matches the client up to the windows' edges.
      const largestShare = Math.max(...deltas) / deltas.reduce((a, b) => a + b, 0);
      assert.ok(server / client > Math.max(0.85, largestShare + 0.05) && server / client < 1.15, `server ${server} vs client ${client} requests (largest replica's share ${largestShare.toFixed(2)})`);
    });

    await t.test('the fleet view shows every replica live with totals, controls all, opens one replica', { skip: chromiumMissing() }, async () => {
      const browser = await launchBrowser({ width: 1280, height: 720 });
      let stop = false;
      const load = drive(fleet.url, 6, () => stop, newTally());
      try {
        const page = await browser.newPage();
        const errors = watchConsole(page);
        await page.goto(`${fleet.url}/?fleet=1`);
        for (const r of fleet.replicas) await page.locator(`[data-testid=fleet-row-${r.name}][data-status=connected]`).waitFor({ timeout: 30_000 });
        // Traffic through the balancer shows on the replicas' rows and in the total.
        await page.waitForFunction(() => {
          const rows = [...document.querySelectorAll('[data-testid^=fleet-row-] [data-testid=fleet-inferences]')];
          return rows.filter((r) => parseFloat(r.textContent ?? '0') > 0).length >= 2;
        }, undefined, { timeout: 30_000 });
        // Per-replica charts: one line per replica that has data, named in the legend, on both charts.
        for (const chart of ['fleet-chart-throughput', 'fleet-chart-p99']) {
          await page.waitForFunction((sel) => ((document.querySelector(sel) as HTMLCanvasElement | null)?.dataset.legend ?? '').split(' | ').filter((n) => /^replica-\d$/.test(n)).length >= 2,
            `[data-testid=${chart}] canvas`, { timeout: 30_000 });
        }
        // lines, not single points: the snapshot's history fills each replica's recent seconds at once
        await page.waitForFunction(() => Number((document.querySelector('[data-testid=fleet-chart-throughput] canvas') as HTMLCanvasElement).dataset.spanS) >= 2, undefined, { timeout: 30_000 });
        const legend = (await page.locator('[data-testid=fleet-chart-throughput] canvas').getAttribute('data-legend')) ?? '';
        assert.ok(legend.split(' | ').every((n) => fleet.replicas.some((r) => r.name === n)), `legend names replicas only: ${legend}`);
        assert.match(await page.title(), /Fleet/);
        await screenshot(page, 'fleet-view');
        await page.locator('input[aria-label=max_queue_delay_microseconds]').fill('3000');
        await page.getByTestId('fleet-apply').click();
        await page.waitForFunction((n) => document.querySelectorAll('[data-testid=fleet-answers] li').length === n, fleet.replicas.length, { timeout: 15_000 });
        const answers = await page.getByTestId('fleet-answers').innerText();
        assert.equal((answers.match(/applied/g) ?? []).length, fleet.replicas.length, answers);
        for (const r of fleet.replicas) {
          const cfg = (await (await fetch(`${r.url}/v2/models/${MODEL}/config`)).json()) as any;
          assert.equal(Number(cfg.dynamic_batching.max_queue_delay_microseconds), 3000, `${r.name} got the change`);
        }
        // "open" shows that replica's own views, its socket routed to it through the balancer.
        await page.locator(`[data-testid=fleet-row-replica-2] a`).click();
        await page.waitForURL(/replica=replica-2/);
        await page.locator('.dot-connected').first().waitFor({ timeout: 30_000 });
        assert.match(page.url(), /replica=replica-2/, 'the replica survives URL-state rewrites');
        assert.equal(await page.getByTestId('replica-name').textContent(), 'replica replica-2', 'the page says which replica it shows');
        assert.match(await page.title(), /replica-2/);
        assert.deepEqual(errors, []);
      } finally {
        stop = true;
        await load;
        await browser.close();
      }
    });
  } finally {
    await fleet.stop();
  }
  // Nothing left behind: every replica, HAProxy and Prometheus has exited.
  for (const r of fleet.replicas) assert.equal(r.process.running, false);
});
