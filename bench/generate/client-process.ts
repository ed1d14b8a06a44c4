// The bench's load generator as its own process (an external load generator, as wrk is for the HTTP
// benches): it shares the host's cores with the server but not its threads, and `--client-nice` can lower
// its CPU priority so it takes only what the server leaves, the nearest this one host gets to a client
// on another machine. Runs the product's generative client (gen-load.ts over gen-stream.ts) on the asks it
// is sent over IPC and sends back every request's record, its times moved onto the parent's clock.
import { httpGenerateStream } from '../../apps/server/src/clients/generate/gen-stream';
import { runGenLoad, type GenLoadMode } from '../../apps/server/src/clients/generate/gen-load';
import type { GenAsk } from '../../apps/server/src/clients/generate/gen-workload';

process.once('message', async (m: { url: string; model: string; asks: GenAsk[]; mode: GenLoadMode; parentOrigin: number }) => {
  const records = await runGenLoad(httpGenerateStream(m.url, m.model), m.asks, m.mode);
  // performance.now() counts from each process's own start: shift onto the parent's
  const shift = performance.timeOrigin - m.parentOrigin;
  const moved = records.map((r) => ({ ...r, sentMs: r.sentMs + shift, endMs: r.endMs + shift, tokenMs: r.tokenMs.map((t) => t + shift) }));
  process.send!(moved, undefined, {}, () => process.exit(0));
});
