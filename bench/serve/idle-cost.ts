/**
 * What an idle server costs: the main thread's CPU per second and its context switches (wake-ups) per
 * second with no request and no dashboard client, live gateway on (or `nolive`). Issue 31's low-load
 * measure starts here: every periodic timer on the main loop is paid at every load.
 *
 *   IDLE_MS=10000 node --import tsx bench/serve/idle-cost.ts [nolive]
 */
import { buildApp } from '../../apps/server/src/app';
import { makeBenchRepository } from './bench-models';
import { mainThreadCpuUs, taskSwitches } from './thread-cpu';
const repo = makeBenchRepository(1, ['mlp_batched']);
const live = process.argv[2] !== 'nolive';
const server = await buildApp({ modelRepositories: [repo], httpPort: 0, grpcPort: null, metricsPort: null, host: '127.0.0.1', live });
await server.listen();
await new Promise((r) => setTimeout(r, 1500));
const c0 = mainThreadCpuUs(), x0 = taskSwitches(), t0 = performance.now();
await new Promise((r) => setTimeout(r, Number(process.env.IDLE_MS ?? 4000)));
const s = (performance.now() - t0) / 1000;
console.log(`live=${live} idle: main thread ${((mainThreadCpuUs() - c0) / s / 1000).toFixed(1)} ms CPU/s, ${((taskSwitches() - x0) / s).toFixed(0)} context switches/s`);
await server.close();
