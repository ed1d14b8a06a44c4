/**
 * The load generator thread: its own event loop, so sending on schedule never competes with the
 * server's HTTP parsing, scheduler timers and live gateway, and the server's figures never carry the
 * client's cost. It talks to the server like any client (keep-alive loopback HTTP, binary tensors) and
 * to the controller only through these messages (job.ts).
 */
import { parentPort, threadId } from 'node:worker_threads';
import { runLoad } from '../runner';
import { HttpTarget } from '../targets';
import { PacedClock } from './paced-clock';
import { prepareJob, type FromGenerator, type GeneratorJob, type ToGenerator } from './job';

const port = parentPort;
if (!port) throw new Error('worker-main.ts runs as the load generator thread (generator/thread-generator.ts starts it)');
const post = (m: FromGenerator) => port.postMessage(m);
const abort = new AbortController();
let go: (() => void) | undefined;
const started = new Promise<void>((r) => (go = r));

async function run(job: GeneratorJob): Promise<void> {
  // sockets: at least the most requests the run may keep in flight, so none waits for a free socket
  const target = new HttpTarget({ url: job.url, binary: job.binary, seed: job.seed, maxSockets: Math.min(job.limits.max_in_flight, 1024) });
  let prepared = false;
  try {
    const facts = await prepareJob(job, target);
    post({ type: 'prepared', thread_id: threadId, pid: process.pid, duration_s: facts.duration_s, models: facts.models, ...(facts.recorded ? { recorded: facts.recorded } : {}) });
    prepared = true;
    await started;
    const result = await runLoad(target, facts.work(), {
      clock: new PacedClock(),
      signal: abort.signal,
      speed: job.speed,
      model: job.model,
      version: job.version,
      limits: job.limits,
      progressEveryMs: job.progressEveryMs,
      onProgress: (progress) => post({ type: 'progress', progress }),
    });
    post({ type: 'done', result });
  } catch (err) {
    post({ type: 'failed', error: err instanceof Error ? err.message : String(err), prepared });
  } finally {
    target.close();
    port!.close();
  }
}

port.on('message', (m: ToGenerator) => {
  if (m.type === 'start') void run(m.job);
  else if (m.type === 'go') go?.();
  else if (m.type === 'stop') {
    abort.abort();
    go?.(); // a run stopped before 'go' ends at once, having sent nothing
  }
});
