/**
 * Whether this thread's event loop is turning for a sub-millisecond RealClock wait now (the server's main
 * thread then never sleeps and holds a core): what the wake probe records for each batch it sees posted.
 *
 * Watched from outside the product: RealClock.prototype's setTimer and clearTimer are wrapped (once, for
 * every RealClock of the process) and a wait armed with less than REAL_CLOCK_COARSE_US left counts from
 * arming until it fires or is cleared. RealClock also finishes a long wait turn by turn when libuv wakes
 * it a little early; those few microseconds are not counted here.
 */
import { RealClock, type TimerHandle } from '@inferscope/core/clock';
import { REAL_CLOCK_COARSE_US } from '../sim-host/real-clock-model';

const pending = new Set<object>();
const tokenOf = new Map<TimerHandle, object>();
let installed = false;

/** Wraps RealClock's timers so `turning()` can tell; idempotent. */
export function installTurningWatch(): void {
  if (installed) return;
  installed = true;
  const proto = RealClock.prototype;
  const setTimer = proto.setTimer;
  const clearTimer = proto.clearTimer;
  proto.setTimer = function (this: RealClock, atUs: number, fn: () => void): TimerHandle {
    if (atUs - this.now() >= REAL_CLOCK_COARSE_US) return setTimer.call(this, atUs, fn);
    const token = {};
    pending.add(token);
    const handle: TimerHandle = setTimer.call(this, atUs, () => {
      pending.delete(token);
      tokenOf.delete(handle);
      fn();
    });
    tokenOf.set(handle, token);
    return handle;
  };
  proto.clearTimer = function (this: RealClock, handle: TimerHandle): void {
    const token = tokenOf.get(handle);
    if (token) pending.delete(token);
    tokenOf.delete(handle);
    clearTimer.call(this, handle);
  };
}

/** A sub-millisecond RealClock wait is pending now (installTurningWatch first). */
export function turning(): boolean {
  return pending.size > 0;
}
