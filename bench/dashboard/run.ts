/**
 * Dashboard benchmark: frames per second in headless Chromium while the real server's live gateway
 * streams 5,000 scheduler events a second (target >= 50 fps). The events are a realistic request
 * lifecycle mix for mlp_classifier (queued, formed, started, completed) put on the server's EventBus, so
 * the gateway, frame coalescing, the socket, the store and every chart do their real work; the model
 * itself is not run (that would measure inference, not the dashboard).
 *
 * Baseline measured in the same run: the same page and view with the stream idle.
 * Run: node --import tsx bench/dashboard/run.ts [--rate 5000] [--seconds 6]
 */
import type { SchedulerEvent } from '@inferscope/core';
// The page's window hooks (window.__inferscope) are declared by the dashboard module that installs them.
import type {} from '../../apps/web/src/charts/frame-loop';
import { chromiumMissing, launchBrowser } from '../../test/e2e/browser';
import { startServer } from '../../test/e2e/server-under-test';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const RATE = arg('rate', 5000);
const SECONDS = arg('seconds', 6);
const MODEL = 'mlp_classifier';

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}

const server = await startServer();
const bus = server.app.bus;
const instances = ['mlp_classifier_cpu_0', 'mlp_classifier_cpu_1'];
let seq = 0;
let batchSeq = 0;
let emitted = 0;

/** One batch of 8 requests = 8 queued + formed + started + completed + 8 request.completed = 19 events. */
function emitBatch(): number {
  const t = Math.round(performance.now() * 1000);
  const ids: string[] = [];
  const base = { model: MODEL, version: '1' };
  const out: SchedulerEvent[] = [];
  for (let i = 0; i < 8; i++) {
    const id = `bench-${++seq}`;
    ids.push(id);
    out.push({ type: 'request.queued', ...base, t: t - 2000 + i * 100, request_id: id, priority: 1 + (i % 2), batch_size: 1, queue_depth: i + 1 });
  }
  const batch = `bb-${++batchSeq}`;
  const inst = instances[batchSeq % 2];
  out.push({ type: 'batch.formed', ...base, t: t - 1000, batch_id: batch, request_ids: ids, size: 8, trigger: batchSeq % 3 ? 'preferred' : 'delay', oldest_wait_us: 1000 });
  out.push({ type: 'batch.started', ...base, t: t - 900, batch_id: batch, instance: inst, size: 8 });
  out.push({ type: 'batch.completed', ...base, t: t - 100, batch_id: batch, instance: inst, size: 8, compute_us: 800, ok: true });
  for (const id of ids) out.push({ type: 'request.completed', ...base, t, request_id: id, batch_id: batch, priority: 1, batch_size: 1, queue_us: 1000, compute_us: 800, total_us: 1900, ok: true });
  for (const e of out) bus.emit(e);
  return out.length;
}

let pump: ReturnType<typeof setInterval> | undefined;
function startStream(): void {
  const started = performance.now();
  emitted = 0;
  pump = setInterval(() => {
    const due = ((performance.now() - started) / 1000) * RATE;
    while (emitted < due) emitted += emitBatch();
  }, 5);
}

const browser = await launchBrowser({ width: 1440, height: 900 });
const page = await browser.newPage();
const consoleErrors: string[] = [];
page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
await page.goto(`${server.url}/?view=data`);
await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });

async function measure(view: string): Promise<{ fps: number; eventsPerS: number; dropped: number }> {
  await page.click(`[data-testid=tab-${view}]`);
  await page.waitForTimeout(1000);
  const before = await page.evaluate(() => ({ frames: window.__inferscope!.frames, c: window.__inferscopeCounters!(), t: performance.now() }));
  await page.waitForTimeout(SECONDS * 1000);
  const after = await page.evaluate(() => ({ frames: window.__inferscope!.frames, c: window.__inferscopeCounters!(), t: performance.now() }));
  const s = (after.t - before.t) / 1000;
  return { fps: (after.frames - before.frames) / s, eventsPerS: (after.c.events - before.c.events) / s, dropped: after.c.dropped - before.c.dropped };
}

const views = ['data', 'state', 'performance', 'architecture'];
const rows: string[][] = [];
for (const view of views) {
  const idle = await measure(view);
  startStream();
  const busy = await measure(view);
  clearInterval(pump);
  rows.push([view, idle.fps.toFixed(1), busy.fps.toFixed(1), (busy.fps / idle.fps).toFixed(2), busy.eventsPerS.toFixed(0), String(busy.dropped)]);
}

console.log(`\ndashboard fps, headless Chromium 1440x900, stream target ${RATE} events/s (${SECONDS} s per measurement)`);
const head = ['view', 'fps idle (baseline)', 'fps streaming', 'ratio', 'events/s received', 'sampled away'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(line(head));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(r));
const worst = Math.min(...rows.map((r) => Number(r[2])));
console.log(`\nworst streaming fps ${worst.toFixed(1)} (target >= 50): ${worst >= 50 ? 'PASS' : 'BELOW TARGET'}`);
if (consoleErrors.length) console.log('console errors:', consoleErrors);

await browser.close();
await server.close();
