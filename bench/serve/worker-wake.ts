/**
 * What waking an instance's worker thread costs the main thread, two ways, alternated in one run:
 *
 * - `notify`: the worker sleeps in Atomics.wait and takes messages with receiveMessageOnPort; the main
 *   thread posts, then bumps the wake word and calls Atomics.notify (the onnxruntime instance worker's
 *   blocking loop, apps/server/src/backends/onnxruntime/worker.mjs);
 * - `event`: the worker sleeps in its event loop and is woken by postMessage alone (the architecture
 *   floor's worker).
 *
 * The worker busies itself for --work-us per message (a batch), answers, and the main thread sends the
 * next one when the answer arrives, so every message finds the worker asleep. Printed per message: the
 * time the main thread spends in the send, the round trip, and the main thread's CPU.
 *
 *   node --import tsx bench/serve/worker-wake.ts [--rounds 3] [--messages 4000] [--work-us 300]
 */
import { Worker } from 'node:worker_threads';
import { arg } from '../args';
import { hostConditions } from '../host';
import { median } from '../median';
import { mainThreadCpuUs } from './thread-cpu';

type Mode = 'notify' | 'event';
interface Figure { sendUs: number; roundTripUs: number; mainCpuUs: number }

const rounds = Number(arg('--rounds', '3'));
const messages = Number(arg('--messages', '4000'));
const workUs = Number(arg('--work-us', '300'));
const WARMUP = 200;

const WORKER = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const busy = (us) => { const end = performance.now() + us / 1000; while (performance.now() < end); };
const wake = new Int32Array(workerData.wake);
if (workerData.mode === 'event') {
  parentPort.on('message', (m) => { busy(workerData.workUs); parentPort.postMessage(m); });
} else {
  let seen = Atomics.load(wake, 0);
  for (;;) {
    const got = receiveMessageOnPort(parentPort);
    if (!got) { Atomics.wait(wake, 0, seen); seen = Atomics.load(wake, 0); continue; }
    if (got.message === 'quit') break;
    busy(workerData.workUs);
    parentPort.postMessage(got.message);
  }
}`;

function run(mode: Mode): Promise<Figure> {
  const wake = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER, { eval: true, workerData: { mode, wake: wake.buffer, workUs } });
  return new Promise((resolve) => {
    let n = 0;
    let sendNs = 0n;
    let t0 = 0;
    let cpu0 = 0;
    const send = () => {
      const at = process.hrtime.bigint();
      worker.postMessage(n);
      if (mode === 'notify') {
        Atomics.add(wake, 0, 1);
        Atomics.notify(wake, 0);
      }
      if (n >= WARMUP) sendNs += process.hrtime.bigint() - at;
    };
    worker.on('message', () => {
      if (n === WARMUP) {
        t0 = performance.now();
        cpu0 = mainThreadCpuUs();
      }
      if (++n < messages) {
        send();
        return;
      }
      const counted = messages - WARMUP;
      const figure = { sendUs: Number(sendNs) / 1000 / counted, roundTripUs: ((performance.now() - t0) * 1000) / counted, mainCpuUs: (mainThreadCpuUs() - cpu0) / counted };
      if (mode === 'notify') {
        worker.postMessage('quit');
        Atomics.add(wake, 0, 1);
        Atomics.notify(wake, 0);
      }
      void worker.terminate().then(() => resolve(figure));
    });
    send();
  });
}

console.log(`worker wake-up, ${messages} messages a run (${WARMUP} not counted), ${workUs} µs of work each, ${rounds} rounds, ${hostConditions()}`);
console.log('round | mode | send µs | round trip µs | main thread CPU µs per message');
const figures: Record<Mode, Figure[]> = { notify: [], event: [] };
for (let r = 1; r <= rounds; r++) {
  const order: Mode[] = r % 2 ? ['event', 'notify'] : ['notify', 'event'];
  for (const mode of order) {
    const f = await run(mode);
    figures[mode].push(f);
    console.log(`${r} | ${mode} | ${f.sendUs.toFixed(1)} | ${f.roundTripUs.toFixed(0)} | ${f.mainCpuUs.toFixed(1)}`);
  }
}
const med = (mode: Mode, pick: (f: Figure) => number) => median(figures[mode].map(pick)).toFixed(1);
console.log(`median send µs: notify ${med('notify', (f) => f.sendUs)}, event ${med('event', (f) => f.sendUs)}; main thread CPU µs per message: notify ${med('notify', (f) => f.mainCpuUs)}, event ${med('event', (f) => f.mainCpuUs)}`);
