/**
 * Runs a program the fleet supervises that cannot watch its parent itself (HAProxy, Prometheus), so it
 * dies with the supervisor: Linux has PR_SET_PDEATHSIG but Node cannot set it, and a SIGKILLed
 * supervisor forwards nothing, which left HAProxy answering 503 on the fleet's port for ever.
 *
 *   node --import tsx orphan-guard.ts <program> [args...]      (INFERSCOPE_PARENT_PID = the supervisor)
 *
 * The guard starts the program with its own stdio (the supervisor reads the program's lines as before),
 * forwards SIGTERM/SIGINT to it, watches the supervisor as the replicas do (child-process/parent-watch.ts) and
 * stops the program when the supervisor is gone; it exits with the program's status. Its SIGKILL comes
 * before the supervisor's (10 s), so a program that ignores SIGTERM is not left behind by a killed guard.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { watchParent } from '../child-process/parent-watch';

export const GUARD_GRACE_MS = 5_000;

const [program, ...args] = process.argv.slice(2);
if (!program) {
  console.error('usage: orphan-guard <program> [args...]');
  process.exit(2);
}
const child = spawn(program, args, { stdio: 'inherit' });
let killTimer: NodeJS.Timeout | undefined;
const stop = (signal: NodeJS.Signals) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  killTimer ??= setTimeout(() => child.kill('SIGKILL'), GUARD_GRACE_MS);
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
watchParent(() => {
  console.error(`the fleet supervisor is gone: stopping ${program}`);
  stop('SIGTERM');
});
child.on('error', (err) => {
  console.error(`cannot start ${program}: ${err.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  clearTimeout(killTimer);
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
});
