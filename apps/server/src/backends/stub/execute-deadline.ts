import { timerDelayMs } from '@inferscope/core/clock';

/**
 * The per-model execute timeout of a stub (parameter `execute_timeout_ms`; 0 or absent = none, as Triton
 * has none by default). A stub runs its batches one at a time, in order, so the batch it is running is the
 * oldest one it owes: the clock runs for that one only, from the moment it became the oldest (the one
 * queued behind it is not charged for its predecessor's time). When it expires, the owner stops the stub.
 */
export class ExecuteDeadline {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timing: number | undefined;

  constructor(
    private readonly ms: number,
    private readonly onExpire: (id: number, ms: number) => void,
  ) {}

  /** `oldest` is the batch the stub runs now (undefined: it owes none). Restarts the clock only on a change. */
  running(oldest: number | undefined): void {
    if (this.ms <= 0 || oldest === this.timing) return;
    this.stop();
    if (oldest === undefined) return;
    this.timing = oldest;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onExpire(oldest, this.ms);
    }, timerDelayMs(this.ms));
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timing = undefined;
  }
}
