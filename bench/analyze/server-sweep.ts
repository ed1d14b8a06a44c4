/**
 * The dashboard's server-side sweep on the bundled MLP: 20 configs (instances 1,2 x delay 0,500,1000,2000,4000
 * x preferred none,max), concurrency 16, 500 ms windows, grid search, the leader re-measured.
 * Prints the wall time and the ranking. Run: node --import tsx bench/analyze/server-sweep.ts
 */
import type { StatsMessage, SweepProgress } from '@inferscope/core';
import { startTestServer } from '../../test/support/server';
import { connectSocket } from '../../test/support/socket';

const server = await startTestServer({ modelControlMode: 'explicit', loadModels: ['mlp_classifier'] });
const socket = await connectSocket(server.url);
const t0 = performance.now();
const ack = await socket.timeout(10_000).emitWithAck('control', {
  action: 'startSweep', model: 'mlp_classifier', version: '1', instances: [1, 2], delay_us: [0, 500, 1000, 2000, 4000], preferred: ['none', 'max'],
  concurrency: 16, measurement_interval_ms: 500, search: 'grid', confirm: 1,
});
if (!ack.ok) throw new Error(ack.error);
const done = await new Promise<SweepProgress>((resolve) => socket.on('stats', (s: StatsMessage) => { const p = s.sweep; if (p && p.id === ack.id && p.state !== 'running') resolve(p); }));
console.log(`${done.state}: ${done.results.length} configs measured in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
for (const r of done.results.slice(0, 5)) console.log(r.rank, JSON.stringify(r.config), r.throughput_per_s.toFixed(0), 'infer/s p99', (r.latency_us.p99 / 1000).toFixed(2), 'ms', r.pareto ? 'pareto' : '');
socket.close();
await server.close();
