// The helper thread of fine-wait.ts: sleeps in Atomics.wait until the deadline the main thread set (a
// fractional-millisecond timeout, so no spinning and no whole-millisecond rounding), then posts one
// message, which wakes the main thread's event loop. Plain JS: it needs no loader.
import { parentPort, workerData } from 'node:worker_threads';

/** [0]: bumped by the main thread on every change; [1]: 1 once the process exits (the thread must end:
 * a thread asleep in Atomics.wait cannot be terminated, and the process would wait for it for ever) */
const seq = new Int32Array(workerData.seq);
/** absolute deadline in µs since the epoch (performance.timeOrigin + performance.now()), 0 = none */
const deadline = new BigInt64Array(workerData.deadline);
const nowUs = () => (performance.timeOrigin + performance.now()) * 1000;

parentPort.postMessage('ready');
while (Atomics.load(seq, 1) === 0) {
  const seen = Atomics.load(seq, 0);
  const at = Number(Atomics.load(deadline, 0));
  if (at === 0) {
    Atomics.wait(seq, 0, seen);
    continue;
  }
  const left = at - nowUs();
  if (left > 0) {
    // returns early when the main thread arms another deadline (seq changes)
    Atomics.wait(seq, 0, seen, left / 1000);
    continue;
  }
  // due: clear it unless the main thread re-armed meanwhile, then wake the main thread
  Atomics.compareExchange(deadline, 0, BigInt(at), 0n);
  parentPort.postMessage(null);
}
