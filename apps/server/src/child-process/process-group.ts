/**
 * Children that run code the server does not control (a model's model.py) are spawned in a process group
 * of their own, and ended as a group: whatever they forked dies with them, and a forked grandchild that
 * inherited their pipes cannot keep them open (which would hide the child's death from anything watching
 * the pipes). Every live group is also killed, synchronously, when this process exits for any reason Node
 * still runs 'exit' handlers for (process.exit, an uncaught exception, the end of the event loop).
 *
 * After stopBusyGroups() (a server shutting down) no new group may be spawned, so a supervisor cannot
 * restart what shutdown just ended.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** What a live group is, for the shutdown's "still waiting for" line. */
export interface GroupInfo {
  label: string;
  /** e.g. "1 batch owed"; empty when idle */
  busy(): string;
  /** ends the group, telling its owner why (default: SIGKILL to the group) */
  stop?(why: string): void;
}

const live = new Map<number, GroupInfo>();
let stopped: string | null = null;
let hooked = false;

export class SpawnRefusedError extends Error {}

/**
 * spawn() with `detached: true` (setsid: the child leads a new group whose id is its pid). The group is
 * registered until the child's 'exit', when it is killed (its leftovers with it) and forgotten.
 */
export function spawnInGroup(command: string, args: readonly string[], options: SpawnOptions, info: GroupInfo): ChildProcess {
  if (stopped !== null) throw new SpawnRefusedError(`not starting ${info.label}: ${stopped}`);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const pgid of live.keys()) killGroup(pgid, 'SIGKILL');
    });
  }
  const child = spawn(command, args, { ...options, detached: true });
  const pgid = child.pid;
  if (pgid !== undefined) {
    live.set(pgid, info);
    child.once('exit', () => {
      killGroup(pgid, 'SIGKILL');
      live.delete(pgid);
    });
  }
  return child;
}

/** Signals every process of group `pgid`; false when none is left. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The groups alive now and what each is busy with. */
export function liveGroups(): { pgid: number; label: string; busy: string }[] {
  return [...live].map(([pgid, g]) => ({ pgid, label: g.label, busy: g.busy() }));
}

/**
 * Stops every live group that is busy (owes work) and refuses new groups from now on (`why` becomes the
 * refusal's reason). Their owners see the children exit and answer what they owed with `why`. Idle
 * groups are left to their owners' own orderly stop (a stub's finalize). Returns how many were stopped.
 */
export function stopBusyGroups(why: string): number {
  stopped = why;
  let n = 0;
  for (const [pgid, info] of [...live]) {
    if (info.busy() === '') continue;
    n++;
    if (info.stop) info.stop(why);
    else killGroup(pgid, 'SIGKILL');
  }
  return n;
}
