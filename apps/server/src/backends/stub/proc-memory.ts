/**
 * Resident memory of a child process, from Linux's /proc/<pid>/status (VmRSS). A stub process is all the
 * instance's own memory: interpreter, framework, weights, activations. RSS counts shared library pages in
 * every process that maps them (libtorch's code in each torch stub), so the figure errs on the high side,
 * which is the safe side for a budget. Undefined where /proc is missing.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export function processRssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Pids of the children of `pid` (Linux /proc/<pid>/task/<pid>/children), for tests and diagnostics. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Pids of the children of every thread of `pid` (a thread's fork is its child, not the main thread's). */
function childPidsOfAllThreads(pid: number): number[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out = new Set<number>();
  for (const tid of tids) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (c !== '') out.add(Number(c));
    } catch {
      // the thread ended meanwhile
    }
  }
  return [...out];
}

/** Every descendant of `pid` (children, their children, ...). */
export function descendantPids(pid: number): number[] {
  const seen = new Set<number>([pid]);
  const queue = [pid];
  for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
    for (const c of childPidsOfAllThreads(p)) {
      if (seen.has(c)) continue;
      seen.add(c);
      queue.push(c);
    }
  }
  seen.delete(pid);
  return [...seen];
}

/** VmRSS of `pid` plus that of every descendant (what a stub and all it started hold); undefined when `pid` is gone. */
export function treeRssBytes(pid: number): number | undefined {
  const own = processRssBytes(pid);
  if (own === undefined) return undefined;
  return descendantPids(pid).reduce((sum, c) => sum + (processRssBytes(c) ?? 0), own);
}

/**
 * GPU memory the driver attributes to one process (nvidia-smi --query-compute-apps), CUDA context
 * included: per process, so stubs loading at the same time cannot take each other's share. Undefined
 * without nvidia-smi or when the process holds no GPU memory.
 */
export function processGpuBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const out = execFileSync('nvidia-smi', ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    for (const line of out.split('\n')) {
      const [p, mib] = line.split(',').map((s) => Number(s.trim()));
      if (p === pid && Number.isFinite(mib)) return mib * 1024 * 1024;
    }
    return undefined;
  } catch {
    return undefined;
  }
}
