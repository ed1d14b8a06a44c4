/**
 * Turns the scheduler's event stream into one `frame` per tick per client, with a bound on what any
 * client can cost us.
 *
 * Why: one socket emit per event costs ~10% CPU per 10k events/s (FINDINGS.md), so events are coalesced.
 * A client that cannot keep up (its socket backlog grows) must not make the server buffer without bound,
 * so it is sampled: the rare control-plane events (model/instance state, config changes, memory) are
 * always delivered, the high-rate request/batch events are dropped and counted in `dropped`.
 *
 * Within one frame the high-rate events are capped too (maxEventsPerFrame); batch events are kept in
 * preference to request events because they carry more of the picture per event.
 */
import type { Frame, SchedulerEvent } from '@inferscope/core';

export interface CoalescerOptions {
  /** most events in one frame (control-plane events always fit on top) */
  maxEventsPerFrame: number;
  /** a client whose backlog (queued packets) exceeds this is skipped this tick and sampled */
  maxBacklog: number;
  /** events buffered between two ticks before the tick's own high-rate events start being dropped */
  maxBufferedEvents: number;
  /** control-plane events kept for a stalled client before the oldest are dropped (and counted) */
  maxHeldControlEvents: number;
}

export const DEFAULT_COALESCER_OPTIONS: CoalescerOptions = {
  maxEventsPerFrame: 2000,
  maxBacklog: 8,
  maxBufferedEvents: 20000,
  maxHeldControlEvents: 2000,
};

/** Control-plane events: rare and needed to keep the client's picture right, never sampled (a sequence's slots change once per START/END). */
export function isControlPlane(e: SchedulerEvent): boolean {
  return e.type === 'model.state' || e.type === 'instance.state' || e.type === 'config.changed' || e.type === 'memory' || e.type === 'sequence.slots';
}

function isBatchEvent(e: SchedulerEvent): boolean {
  return e.type === 'batch.formed' || e.type === 'batch.started' || e.type === 'batch.completed';
}

interface ClientState {
  seq: number;
  heldControl: SchedulerEvent[];
  heldDropped: number;
}

/** Keeps every k-th element so the kept ones spread evenly over the tick instead of clustering. */
function evenSample<T>(items: T[], keep: number): T[] {
  if (keep >= items.length) return items;
  if (keep <= 0) return [];
  const out: T[] = [];
  const step = items.length / keep;
  for (let i = 0; i < keep; i++) out.push(items[Math.floor(i * step)]);
  return out;
}

export class FrameCoalescer {
  private control: SchedulerEvent[] = [];
  private batch: SchedulerEvent[] = [];
  private request: SchedulerEvent[] = [];
  /** high-rate events refused at intake because the tick buffer was full */
  private overflow = 0;
  private clients = new Map<string, ClientState>();
  readonly options: CoalescerOptions;

  constructor(options: Partial<CoalescerOptions> = {}) {
    this.options = { ...DEFAULT_COALESCER_OPTIONS, ...options };
  }

  /**
   * Called for every bus event: O(1), no allocation beyond the push. With no client connected nothing is
   * kept: a client that connects later starts from a snapshot, and buffering events nobody receives would
   * keep every event object alive for a tick (40 ms), long enough to survive the young-generation GC and
   * be promoted; that GC work alone cost the serving path about a third of its throughput.
   */
  push(e: SchedulerEvent): void {
    if (this.clients.size === 0) return;
    if (isControlPlane(e)) {
      this.control.push(e);
      return;
    }
    if (this.batch.length + this.request.length >= this.options.maxBufferedEvents) {
      this.overflow++;
      return;
    }
    (isBatchEvent(e) ? this.batch : this.request).push(e);
  }

  addClient(id: string): void {
    this.clients.set(id, { seq: 0, heldControl: [], heldDropped: 0 });
  }

  removeClient(id: string): void {
    this.clients.delete(id);
  }

  get hasClients(): boolean {
    return this.clients.size > 0;
  }

  get bufferedEvents(): number {
    return this.control.length + this.batch.length + this.request.length;
  }

  /**
   * Builds this tick's frame for every client. `backlog(id)` says how many packets are still queued for the
   * client; `send(id, frame)` emits. Clients above the backlog bound get nothing this tick: their
   * control-plane events are held and the rest counted, and both arrive with their next frame.
   * Returns nothing to send when a tick had no events and nobody has anything held (idle server, no emits).
   */
  flush(now: number, backlog: (id: string) => number, send: (id: string, frame: Frame) => void): void {
    const control = this.control;
    const batch = this.batch;
    const request = this.request;
    const overflow = this.overflow;
    this.control = [];
    this.batch = [];
    this.request = [];
    this.overflow = 0;
    const highRate = batch.length + request.length;

    // Sample once for everyone who is keeping up: the same arrays are shared by all their frames.
    const cap = this.options.maxEventsPerFrame;
    const keptBatch = evenSample(batch, Math.min(batch.length, cap));
    const keptRequest = evenSample(request, Math.max(0, cap - keptBatch.length));
    const sampledDropped = highRate - keptBatch.length - keptRequest.length + overflow;
    const shared = control.length === 0 ? [...keptBatch, ...keptRequest] : [...control, ...keptBatch, ...keptRequest];
    if (control.length > 0) shared.sort((a, b) => a.t - b.t);
    else if (keptBatch.length > 0 && keptRequest.length > 0) shared.sort((a, b) => a.t - b.t);

    for (const [id, st] of this.clients) {
      if (backlog(id) > this.options.maxBacklog) {
        for (const e of control) st.heldControl.push(e);
        const excess = st.heldControl.length - this.options.maxHeldControlEvents;
        if (excess > 0) {
          st.heldControl.splice(0, excess);
          st.heldDropped += excess;
        }
        st.heldDropped += highRate + overflow;
        continue;
      }
      if (st.heldControl.length === 0 && st.heldDropped === 0) {
        if (shared.length === 0 && sampledDropped === 0) continue;
        send(id, { seq: ++st.seq, t: now, events: shared, dropped: sampledDropped });
        continue;
      }
      const events = st.heldControl.length > 0 ? [...st.heldControl, ...shared].sort((a, b) => a.t - b.t) : shared;
      send(id, { seq: ++st.seq, t: now, events, dropped: sampledDropped + st.heldDropped });
      st.heldControl = [];
      st.heldDropped = 0;
    }
  }
}
