// The bench's client in a worker thread: its own event loop, so parsing every streamed token does not
// hold the server's event loop between steps (a real client is another process). Runs the product's
// generative client (gen-load.ts over gen-stream.ts) and posts back every request's record.
import { parentPort, workerData } from 'node:worker_threads';
import { httpGenerateStream } from '../../apps/server/src/clients/generate/gen-stream';
import { runGenLoad, type GenLoadMode } from '../../apps/server/src/clients/generate/gen-load';
import type { GenAsk } from '../../apps/server/src/clients/generate/gen-workload';

const { url, model, asks, mode } = workerData as { url: string; model: string; asks: GenAsk[]; mode: GenLoadMode };
parentPort!.postMessage(await runGenLoad(httpGenerateStream(url, model), asks, mode));
