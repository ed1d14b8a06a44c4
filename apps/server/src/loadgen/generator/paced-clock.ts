/**
 * The generator thread's clock: send times to a fraction of a millisecond without spinning.
 *
 * Core's RealClock re-checks waits under a millisecond on every event-loop turn (setImmediate): right
 * for the scheduler, whose thread has other work, but a generator at 800 req/s has a gap under a
 * millisecond most of the time, so that loop would keep its thread busy and take a core from the
 * server's own threads on a 2-core host. Here short waits sleep in Atomics.wait slices of at most
 * SLICE_US (the thread is blocked, not running, and the kernel wakes it at the time) with an event-loop
 * turn between slices, so answers keep being read; waits of 1.5 ms or more sleep in setTimeout until a
 * millisecond before, then finish in slices. A timer never fires before its time.
 *
 * Only for a thread of its own: Atomics.wait blocks the whole event loop for each slice.
 */
import { timerDelayMs, type Clock, type TimerHandle } from '@inferscope/core/clock';
import { MinHeap } from '@inferscope/core/util';

const SLICE_US = 200;
const COARSE_US = 1500;

interface PacedTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class PacedClock implements Clock {
  private readonly heap = new MinHeap<PacedTimer>((a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq));
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));
  private seq = 0;
  private timeout: ReturnType<typeof setTimeout> | undefined;
  private immediate: ReturnType<typeof setImmediate> | undefined;

  now(): number {
    return performance.now() * 1000;
  }

  setTimer(atUs: number, fn: () => void): TimerHandle {
    const timer: PacedTimer = { at: atUs, seq: this.seq++, fn, cancelled: false };
    this.heap.push(timer);
    // a new earliest timer: whatever wake-up was planned may be too late for it
    if (this.heap.peek() === timer) this.rearm();
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    (handle as PacedTimer).cancelled = true;
  }

  private rearm(): void {
    if (this.timeout !== undefined) clearTimeout(this.timeout);
    this.timeout = undefined;
    this.immediate ??= setImmediate(this.tick);
  }

  private readonly tick = (): void => {
    this.immediate = undefined;
    this.timeout = undefined;
    for (let top = this.live(); top && top.at <= this.now(); top = this.live()) {
      this.heap.pop();
      top.cancelled = true; // fired: a later clearTimer is a no-op
      top.fn();
    }
    const next = this.live();
    if (!next || this.timeout !== undefined || this.immediate !== undefined) return;
    const remaining = next.at - this.now();
    if (remaining >= COARSE_US) {
      this.timeout = setTimeout(this.tick, timerDelayMs(Math.floor((remaining - 1000) / 1000)));
      return;
    }
    if (remaining > 0) Atomics.wait(this.cell, 0, 0, Math.min(remaining, SLICE_US) / 1000);
    this.immediate = setImmediate(this.tick);
  };

  private live(): PacedTimer | undefined {
    while (this.heap.peek()?.cancelled) this.heap.pop();
    return this.heap.peek();
  }
}
