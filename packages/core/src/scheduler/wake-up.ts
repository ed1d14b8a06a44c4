/**
 * A scheduler's one wake-up timer: armed for the earliest time anything may change (a batch delay, a
 * timeout), moved only to an earlier time, since the wake-up re-evaluates everything and arms the next.
 */
import type { Clock, TimerHandle } from '../clock/clock';

export class WakeUp {
  private handle: TimerHandle | null = null;
  private at = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly fire: () => void,
  ) {}

  arm(atUs: number): void {
    if (atUs >= this.at) return; // an earlier wake-up is armed; it re-evaluates everything
    if (this.handle !== null) this.clock.clearTimer(this.handle);
    this.at = atUs;
    this.handle = this.clock.setTimer(atUs, this.onFire);
  }

  clear(): void {
    if (this.handle !== null) this.clock.clearTimer(this.handle);
    this.handle = null;
    this.at = Infinity;
  }

  private onFire = (): void => {
    this.handle = null;
    this.at = Infinity;
    this.fire();
  };
}
