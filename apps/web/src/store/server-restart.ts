/**
 * A reconnect to a restarted server. Every time the dashboard holds is on the server's monotonic clock,
 * and a new process starts that clock again, so its snapshot would read as "older than everything held"
 * and wipe the charts. Instead, the history held is moved onto the new clock through the wall time both
 * processes report (t - wall_ms·1000 is where each clock's zero sits on the wall clock), and the restart
 * becomes a marker at the new process's start. What happened while the server was down is simply absent.
 */
import type { Snapshot } from '@inferscope/core';
import type { Ring } from './ring';

/** One server process: its start id and the wall-clock position of its clock's zero, µs. */
export interface ServerEpoch {
  startId: string;
  clockZeroUs: number;
}

export interface RestartMark {
  t: number;
  startId: string;
}

export function epochOf(s: Snapshot): ServerEpoch | undefined {
  return s.server.start_id ? { startId: s.server.start_id, clockZeroUs: s.t - s.wall_ms * 1000 } : undefined;
}

/** When the snapshot's process started, on its own clock (the snapshot's time when it does not say). */
export function startTimeOf(s: Snapshot): number {
  return s.server.started_wall_ms === undefined ? s.t : Math.min(s.t, s.t - (s.wall_ms - s.server.started_wall_ms) * 1000);
}

/** Moves every item of a ring by `deltaUs` on its time field (the ring keeps its order). */
export function shiftRing<T extends { t: number }>(ring: Ring<T>, deltaUs: number): void {
  const items = ring.toArray();
  ring.clear();
  for (const it of items) ring.push({ ...it, t: it.t + deltaUs });
}
