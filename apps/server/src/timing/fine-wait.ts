/**
 * The server's FineWait for core's RealClock (real-clock.ts): the last sub-millisecond stretch of a batch
 * delay is slept in one helper thread instead of re-checked on every event-loop turn, which kept the main
 * thread busy for up to a millisecond per timer (measured: ~0.9 ms of CPU per 2 ms timer at 50 timers/s).
 * The thread sleeps until the earliest deadline (Atomics.wait with a fractional timeout) and posts a
 * message; the main thread runs what is due and arms the next. Wake-up costs one message, not a spin.
 * The thread is started on first use (until it is up, waits are re-checked turn by turn, as without it)
 * and keeps the process alive only while something waits on it, as a pending setTimeout does (told to end
 * when the process exits: a thread asleep in Atomics.wait could not be terminated).
 */
import { Worker } from 'node:worker_threads';
import type { FineWait } from '@inferscope/core/clock';

const THREAD_URL = new URL('./fine-wait-thread.mjs', import.meta.url);

interface Waiter {
  atUs: number;
  fn: () => void;
}

/** µs since the epoch for a RealClock time (performance.now() based, µs) */
const toEpochUs = (clockUs: number): number => performance.timeOrigin * 1000 + clockUs;

export class FineWaitThread {
  private worker: Worker | null = null;
  /** [0] change counter, [1] quit (fine-wait-thread.mjs) */
  private readonly seq = new Int32Array(new SharedArrayBuffer(8));
  private ready = false;
  private readonly deadline = new BigInt64Array(new SharedArrayBuffer(8));
  /** soonest first; a handful at most (one per model scheduler waiting on its delay) */
  private waiters: Waiter[] = [];
  private armedUs = 0;

  readonly wait: FineWait = (atUs, fn) => {
    if (!this.ready) {
      this.worker ??= this.start();
      setImmediate(fn); // the clock re-checks and asks again: turn by turn until the thread is up
      return;
    }
    const w = { atUs, fn };
    const i = this.waiters.findIndex((x) => x.atUs > atUs);
    if (i < 0) this.waiters.push(w);
    else this.waiters.splice(i, 0, w);
    this.arm();
  };

  private start(): Worker {
    const worker = new Worker(THREAD_URL, { workerData: { seq: this.seq.buffer, deadline: this.deadline.buffer }, execArgv: [] });
    worker.on('message', (m) => {
      if (m !== 'ready') return this.due();
      this.ready = true;
      this.arm();
    });
    worker.on('error', () => {
      // never expected: back to turn-by-turn waits (the clock re-checks) rather than losing one
      this.ready = false;
      this.worker = null;
      setImmediate(() => this.due(true));
    });
    process.once('exit', () => this.quit());
    worker.unref(); // after the listeners: adding a 'message' listener refs the port again
    return worker;
  }

  private quit(): void {
    Atomics.store(this.seq, 1, 1);
    Atomics.add(this.seq, 0, 1);
    Atomics.notify(this.seq, 0);
  }

  private arm(): void {
    const first = this.waiters[0];
    if (!first) {
      this.worker?.unref();
      return;
    }
    const at = Math.ceil(toEpochUs(first.atUs));
    if (this.armedUs === at && Atomics.load(this.deadline, 0) !== 0n) return;
    if (!this.worker || !this.ready) return;
    this.worker.ref();
    this.armedUs = at;
    Atomics.store(this.deadline, 0, BigInt(at));
    Atomics.add(this.seq, 0, 1);
    Atomics.notify(this.seq, 0);
  }

  /** runs every wait whose time has come (the clock re-checks its own timer), then arms the next */
  private due(all = false): void {
    const now = performance.now() * 1000;
    let n = 0;
    while (n < this.waiters.length && (all || this.waiters[n].atUs <= now)) n++;
    const ready = this.waiters.splice(0, n);
    this.armedUs = 0;
    for (const w of ready) w.fn();
    this.arm();
  }
}

let shared: FineWaitThread | null = null;

/** The process's one fine-wait thread (every RealClock of the server shares it). */
export const fineWait: FineWait = (atUs, fn) => (shared ??= new FineWaitThread()).wait(atUs, fn);
