/**
 * A process started by a supervisor (the `inferscope` launcher, `inferscope fleet`) must not outlive it:
 * if the supervisor is SIGKILLed it cannot forward a signal, and the orphan would keep holding its port.
 * Linux re-parents an orphan, so a changed `process.ppid` means the supervisor is gone; the child then
 * shuts down as on SIGTERM (answering what it accepted).
 */
export const PARENT_PID_ENV = 'INFERSCOPE_PARENT_PID';

/** Calls `onOrphaned` once when the parent named by INFERSCOPE_PARENT_PID is gone; returns a stop function. */
export function watchParent(onOrphaned: () => void, intervalMs = 500): () => void {
  const expected = Number(process.env[PARENT_PID_ENV]);
  if (!Number.isInteger(expected) || expected <= 0) return () => {};
  const timer = setInterval(() => {
    if (process.ppid !== expected) {
      clearInterval(timer);
      onOrphaned();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
