import { readFileSync } from 'node:fs';

/**
 * CPU time of this process's main thread (the server's event loop) so far, µs: utime + stime of its task
 * in /proc (clock ticks of 10 ms: over a multi-second window that is well under 1%). process.cpuUsage()
 * counts every thread (onnxruntime's worker, libuv, GC helpers); this is the loop alone, which is what
 * a faster front end must make cheaper. Shared by wrk.ts and h2load.ts.
 */
export function mainThreadCpuUs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/**
 * Context switches of one task (thread) so far, voluntary + involuntary, from /proc. Each voluntary one is
 * a sleep, so a wake-up: the count behind "wake-ups per request" (moderate-load.ts, idle-cost.ts) and per
 * batch (bench/backends/stub-ratio.ts). Defaults to this process's main thread.
 */
export function taskSwitches(pid = process.pid, tid = pid): number {
  const s = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
  return Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(s)![1]) + Number(/\nnonvoluntary_ctxt_switches:\s+(\d+)/.exec(s)![1]);
}
