/**
 * What the live gateway costs the serving path when NO dashboard is connected (R2B). The real
 * ModelScheduler (RealClock, dynamic batching, one instance) runs against an executor that answers each
 * batch on the next macrotask (no model), so the scheduler + EventBus listeners are all the work there is.
 * The bus always carries the server's own consumer (StatsCollector; /metrics reads it); the variant "on"
 * adds the gateway (attachLiveGateway on an HTTP server with no client). Rounds alternate off/on so both
 * see the same machine; the result is the ratio of their best rounds.
 *
 *   node --import tsx bench/serve/gateway-overhead.ts [--ms 1000] [--rounds 5] [--c 32]
 */
import { createServer } from 'node:http';
import { EventBus } from '@inferscope/core';
import { RealClock, ModelScheduler } from '@inferscope/core/scheduler';
import type { Executor } from '@inferscope/core';
import { StatsCollector } from '../../apps/server/src/stats/collector';
import { ControlGuard } from '../../apps/server/src/control/guard';
import { attachLiveGateway, type LiveGateway } from '../../apps/server/src/live/gateway';
import { arg } from '../args';
import { median } from '../median';

const roundMs = Number(arg('--ms', '1000'));
const rounds = Number(arg('--rounds', '5'));
const concurrency = Number(arg('--c', '32'));

const executor: Executor<number, number> = {
  execute: (_i, batch) => Promise.resolve(batch.map((r) => r.payload)),
  executeWithCallback: (_i, batch, done) => setImmediate(() => done(null, batch.map((r) => r.payload))),
};

async function round(gateway: boolean): Promise<{ reqPerS: number; cpuUsPerReq: number }> {
  const bus = new EventBus();
  const stats = new StatsCollector(bus);
  const http = createServer();
  let gw: LiveGateway | undefined;
  if (gateway) {
    gw = attachLiveGateway(http, {
      bus,
      guard: new ControlGuard(undefined),
      source: { serverInfo: () => ({ name: 'bench', version: '0' }) as never, repositories: () => [], models: () => [], memory: () => [], now: () => performance.now() * 1000 },
      control: {} as never,
    });
  }
  const scheduler = new ModelScheduler<number, number>({
    model: 'm', version: '1', clock: new RealClock(), bus, executor,
    config: { max_batch_size: 64, dynamic_batching: { preferred_batch_size: [8, 16, 32], max_queue_delay_microseconds: 2000 }, instance_group: [{ count: 1, kind: 'KIND_CPU' }] },
  });
  await scheduler.start();
  let done = 0;
  const end = performance.now() + roundMs;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    let open = concurrency;
    const loop = (): void => {
      if (performance.now() >= end) {
        if (--open === 0) resolve();
        return;
      }
      scheduler.submit({ batchSize: 1, shapeKey: '', payload: 1 }, () => {
        done++;
        loop();
      });
    };
    for (let i = 0; i < concurrency; i++) loop();
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await scheduler.stop();
  await gw?.close();
  stats.close();
  return { reqPerS: done / seconds, cpuUsPerReq: (cpu.user + cpu.system) / done };
}

await round(false); // warm the JIT for both paths
await round(true);
const off: Awaited<ReturnType<typeof round>>[] = [];
const on: typeof off = [];
for (let i = 0; i < rounds; i++) {
  off.push(await round(false));
  on.push(await round(true));
}
// Best of the rounds: on a shared machine other jobs only ever add time, so the best round is the least
// disturbed one; medians are printed too.
const best = (rs: typeof off) => ({ reqPerS: Math.max(...rs.map((r) => r.reqPerS)), cpu: Math.min(...rs.map((r) => r.cpuUsPerReq)) });
const row = (name: string, rs: typeof off) =>
  `${name.padEnd(13)} | ${Math.round(best(rs).reqPerS).toString().padStart(8)} | ${best(rs).cpu.toFixed(2).padStart(10)} | ${Math.round(median(rs.map((r) => r.reqPerS))).toString().padStart(8)} | ${median(rs.map((r) => r.cpuUsPerReq)).toFixed(2).padStart(10)}`;
console.log(`scheduler + bus consumers, no model, c=${concurrency}, ${rounds} x ${roundMs} ms per variant`);
console.log('gateway       | best req/s | best cpu us/req | median req/s | median cpu us/req');
console.log(row('off', off));
console.log(row('on, no client', on));
console.log(
  `ratio on/off (best): req/s ${(best(on).reqPerS / best(off).reqPerS).toFixed(2)}, cpu/req ${(best(on).cpu / best(off).cpu).toFixed(2)}` +
    `  (median: req/s ${(median(on.map((r) => r.reqPerS)) / median(off.map((r) => r.reqPerS))).toFixed(2)})`,
);
