/**
 * Whether a process id names a live process, for files and folders that carry their owner's pid (atomic
 * write temp files, repository load folders): a dead owner's leftovers may be removed, a live one's never.
 */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else, so it is alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
