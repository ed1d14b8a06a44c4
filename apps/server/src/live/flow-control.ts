/**
 * What one live client may cost the server: its snapshots are rate-limited, and a client whose unsent
 * output passes a bound is disconnected.
 *
 * Why: a snapshot is the whole server's state (tens to hundreds of KiB). A viewer that sent 60,000
 * `resync` and never read its socket made the server queue 60,000 snapshots (RSS +624 MB) and stayed
 * connected. Frames and stats already skip a stalled client (frame-coalescer.ts); snapshots and the bytes
 * already queued were unbounded.
 *
 * - resync: at most one snapshot per RESYNC_INTERVAL_MS per client. A resync inside the interval is not
 *   lost: one snapshot is sent when the interval ends, however many were asked for (the latest state is
 *   all a client needs).
 * - backlog: bytes queued for the client (engine.io's write buffer plus what the WebSocket has not handed
 *   to the kernel). Past MAX_BACKLOG_BYTES the client is disconnected: it can reconnect and gets a fresh
 *   snapshot, which is what it needs anyway after falling that far behind. 16 MiB is ~50 full snapshots
 *   of a large repository, far more than a reading client ever has queued.
 */
import type { Socket } from 'socket.io';

export const RESYNC_INTERVAL_MS = 1000;
export const MAX_BACKLOG_BYTES = 16 * 1024 * 1024;

interface EngineConn {
  writeBuffer?: { data?: unknown }[];
  transport?: { writable?: boolean; socket?: { bufferedAmount?: number } };
}

function sizeOf(data: unknown): number {
  if (typeof data === 'string') return data.length;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

/** Packets waiting to go out (engine.io internals, read defensively; used to skip frames). */
export function backlogPackets(socket: Socket): number {
  const conn = socket.conn as unknown as EngineConn;
  const queued = Array.isArray(conn.writeBuffer) ? conn.writeBuffer.length : 0;
  return queued + (conn.transport && conn.transport.writable === false ? 1 : 0);
}

/** Bytes waiting to go out: engine.io's buffer plus the WebSocket's own (ws bufferedAmount). */
export function backlogBytes(socket: Socket): number {
  const conn = socket.conn as unknown as EngineConn;
  let bytes = 0;
  if (Array.isArray(conn.writeBuffer)) for (const p of conn.writeBuffer) bytes += sizeOf(p?.data);
  const ws = conn.transport?.socket;
  if (ws && typeof ws.bufferedAmount === 'number') bytes += ws.bufferedAmount;
  return bytes;
}

export interface FlowControlOptions {
  resyncIntervalMs?: number;
  maxBacklogBytes?: number;
  log?: (msg: string) => void;
}

export class FlowControl {
  readonly resyncIntervalMs: number;
  /** public so an operator (or a test) can tighten it at run time */
  maxBacklogBytes: number;
  private readonly lastSnapshot = new Map<string, number>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  /** clients disconnected for their backlog since start */
  dropped = 0;

  constructor(private readonly opts: FlowControlOptions = {}) {
    this.resyncIntervalMs = opts.resyncIntervalMs ?? RESYNC_INTERVAL_MS;
    this.maxBacklogBytes = opts.maxBacklogBytes ?? MAX_BACKLOG_BYTES;
  }

  /** A client asked for a snapshot: `send` now, later (once, at the end of the interval), or not at all. */
  resync(socket: Socket, send: () => void): void {
    if (this.pending.has(socket.id)) return; // one is already scheduled: it will carry the latest state
    const wait = (this.lastSnapshot.get(socket.id) ?? -Infinity) + this.resyncIntervalMs - Date.now();
    if (wait <= 0) return this.sent(socket, send);
    const timer = setTimeout(() => {
      this.pending.delete(socket.id);
      if (socket.connected) this.sent(socket, send);
    }, wait);
    timer.unref?.();
    this.pending.set(socket.id, timer);
  }

  /** Records a snapshot sent now (on connect too, so a resync right after connecting waits). */
  sent(socket: Socket, send: () => void): void {
    this.lastSnapshot.set(socket.id, Date.now());
    send();
    this.check(socket);
  }

  /** Disconnects the client when its backlog passed the bound; returns whether it is still connected. */
  check(socket: Socket): boolean {
    if (!socket.connected) return false;
    const bytes = backlogBytes(socket);
    if (bytes <= this.maxBacklogBytes) return true;
    this.dropped++;
    this.opts.log?.(`live: client ${socket.id} dropped: ${bytes} bytes unsent, more than ${this.maxBacklogBytes}`);
    this.forget(socket.id);
    socket.disconnect(true);
    return false;
  }

  forget(id: string): void {
    clearTimeout(this.pending.get(id));
    this.pending.delete(id);
    this.lastSnapshot.delete(id);
  }
}
