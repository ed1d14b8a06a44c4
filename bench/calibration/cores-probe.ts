/**
 * How many cores this process really gets: the same fixed piece of work on one worker thread alone, then
 * on `threads` at once; effective cores = threads x (alone / together). On a dedicated 2-core host it is
 * ~2; on a shared VM whose other tenants keep a core busy it drops towards 1, and instances beyond it
 * stop helping. The simulator's CpuHost takes this figure, not the nominal core count.
 */
import { Worker } from 'node:worker_threads';
import { cpus } from 'node:os';

const SPIN = `const { parentPort } = require('node:worker_threads');
parentPort.on('message', (n) => {
  const t0 = performance.now();
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(i ^ (x & 7));
  parentPort.postMessage(performance.now() - t0 + (x < 0 ? 1 : 0));
});`;

export async function measureEffectiveCores(threads = cpus().length, reps = 3, work = 1e7): Promise<number> {
  const workers = Array.from({ length: threads }, () => new Worker(SPIN, { eval: true }));
  const run = (w: Worker) => new Promise<number>((resolve) => {
    w.once('message', resolve);
    w.postMessage(work);
  });
  try {
    await Promise.all(workers.map(run)); // JIT warm-up
    const ratios: number[] = [];
    for (let r = 0; r < reps; r++) {
      const alone = await run(workers[0]);
      const together = Math.max(...(await Promise.all(workers.map(run))));
      ratios.push((threads * alone) / together);
    }
    const sorted = ratios.sort((a, b) => a - b);
    return Math.round(Math.min(threads, sorted[Math.floor(sorted.length / 2)]) * 100) / 100;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
