/**
 * Runs a short-lived child that executes code the server does not control (a model.py's
 * auto_complete_config) to its exit: in its own process group (process-group.ts), its output read in
 * bounded lines (bounded-lines.ts, only the last few stderr lines kept, for the error), ended by its
 * 'exit' rather than its pipes closing (a forked grandchild holding them cannot stall the load), and the
 * whole group killed at the timeout or at exit.
 */
import type { ChildProcess } from 'node:child_process';
import { readBoundedLines } from './bounded-lines';
import { killGroup, spawnInGroup } from './process-group';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** the child's last stderr lines */
  stderr: string[];
  timedOut: boolean;
}

const KEEP_LINES = 20;

export function runToExit(command: string, args: readonly string[], o: { label: string; timeoutMs: number; stdin?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnInGroup(command, args, { stdio: ['pipe', 'pipe', 'pipe'] }, { label: o.label, busy: () => 'running' });
    } catch (err) {
      reject(err as Error);
      return;
    }
    const stderr: string[] = [];
    readBoundedLines(child.stderr!, (line) => {
      stderr.push(line);
      if (stderr.length > KEEP_LINES) stderr.shift();
    });
    child.stdout!.resume(); // read and dropped
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    }, o.timeoutMs);
    timer.unref();
    child.stdin!.on('error', () => undefined); // a child that exits without reading its input
    child.stdin!.end(o.stdin ?? '');
    child.once('error', (err) => {
      if (child.pid !== undefined) return; // its exit still comes
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // stderr's last lines may still be in the pipe: wait briefly (the group is dead, so it closes)
      const done = (): void => {
        for (const s of child.stdio) s?.destroy();
        resolve({ code, signal, stderr, timedOut });
      };
      if (child.stderr!.readableEnded) done();
      else {
        const late = setTimeout(done, 1000);
        child.stderr!.once('end', () => (clearTimeout(late), done()));
      }
    });
  });
}
