/**
 * Live gateway bench: server CPU per delivered event when the scheduler emits a steady event stream to
 * several dashboard clients, coalesced frames (the gateway) vs one socket emit per event (baseline, the
 * naive design), measured in the same run. Clients run in a child process so their CPU is not counted.
 *
 *   node --import tsx bench/live/run.ts [events_per_s=20000] [clients=4] [seconds=3]
 */
import { ControlGuard } from '../../apps/server/src/control/guard';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Server } from 'socket.io';
import { EventBus, type SchedulerEvent } from '@inferscope/core';
import { attachLiveGateway } from '../../apps/server/src/live/gateway.ts';

const [rate = 20000, clients = 4, seconds = 3] = process.argv.slice(2).map(Number);

interface Counters { frames: number; events: number; dropped: number; perEvent: number; connected: number }

async function withClients<T>(url: string, fn: (read: () => Promise<Counters>) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./clients.ts', import.meta.url).pathname, url, String(clients)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const pending: ((c: Counters) => void)[] = [];
  lines.on('line', (l) => pending.shift()?.(JSON.parse(l)));
  const read = () => new Promise<Counters>((r) => { pending.push(r); child.stdin!.write('\n'); });
  try {
    for (let i = 0; i < 100 && (await read()).connected < clients; i++) await new Promise((r) => setTimeout(r, 50));
    return await fn(read);
  } finally {
    child.stdin!.write('quit\n');
  }
}

/** Emits rate x seconds request.queued events on the bus, paced at `rate` per second in 5 ms slices. */
async function drive(bus: EventBus): Promise<number> {
  let n = 0;
  const total = rate * seconds;
  const start = performance.now();
  while (n < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; n < due; n++) {
      const e: SchedulerEvent = { type: 'request.queued', t: n, model: 'mlp_classifier', version: '1', request_id: `r${n}`, priority: 1, batch_size: 1, queue_depth: 3 };
      bus.emit(e);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return n;
}

async function phase(name: string, attach: (http: ReturnType<typeof createServer>, bus: EventBus) => { close(): Promise<void> | void }) {
  const http = createServer();
  const bus = new EventBus();
  const g = attach(http, bus);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const result = await withClients(url, async (read) => {
    const before = await read();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const emitted = await drive(bus);
    const driveS = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 300)); // let the last frames out
    const cpu = process.cpuUsage(cpu0);
    const wall = (performance.now() - t0) / 1000;
    const after = await read();
    const delivered = after.events + after.perEvent - before.events - before.perEvent;
    return { name, emitted, achieved: emitted / driveS, delivered, dropped: after.dropped - before.dropped, frames: after.frames - before.frames, cpuPct: ((cpu.user + cpu.system) / 1e6 / wall) * 100, cpuUsPerDelivered: (cpu.user + cpu.system) / Math.max(1, delivered) };
  });
  await g.close();
  await new Promise<void>((r) => http.close(() => r()));
  return result;
}

const baseline = await phase('one emit per event (baseline)', (http, bus) => {
  const io = new Server(http);
  const off = bus.on((e) => io.emit('event', e));
  return { close: () => { off(); io.close(); } };
});
const gateway = await phase('gateway (coalesced frames)', (http, bus) =>
  attachLiveGateway(http, {
    bus,
    guard: new ControlGuard(undefined),
    control: {} as never,
    source: { serverInfo: () => ({ name: 'b', version: '0', extensions: [], model_control_mode: 'none', cpu_count: 2, gpu_count: 0 }), repositories: () => [], models: () => [], memory: () => [], now: () => 0 },
  }),
);

console.log(`live gateway bench: ${rate} events/s to ${clients} clients for ${seconds} s (server process CPU only)`);
console.log('| design | emitted | achieved events/s | delivered (all clients) | dropped | frames | server CPU % | CPU us / delivered event |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of [baseline, gateway])
  console.log(`| ${r.name} | ${r.emitted} | ${Math.round(r.achieved)} | ${r.delivered} | ${r.dropped} | ${r.frames} | ${r.cpuPct.toFixed(1)} | ${r.cpuUsPerDelivered.toFixed(2)} |`);
console.log(`ratio: gateway uses ${(gateway.cpuUsPerDelivered / baseline.cpuUsPerDelivered).toFixed(2)}x the CPU per delivered event of the baseline`);
process.exit(0);
