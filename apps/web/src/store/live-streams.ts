/**
 * Requests that answer many times (a decoupled model's streams) in the live picture. Such a request's
 * request.completed comes when the model's execute() returned, which is not an answer; each
 * request.response is one: it leaves the instance as its own dot in the data-flow view (`finished`),
 * so a stream shows as several responses leaving one request. A request that completed keeps its
 * place here (its instance, colour, protocol) until its final response.
 */
import type { RequestResponseEvent } from '@inferscope/core';
import type { Ring } from './ring';
import type { RequestLive } from './live-types';

/** streams whose final response was lost to sampling must not pile up */
const MAX_OPEN_STREAMS = 5000;

export class LiveStreams {
  private readonly open = new Map<string, RequestLive>();

  constructor(private readonly finished: Ring<RequestLive>) {}

  /** The request's execute() returned (ok): its responses may still be coming. */
  completed(r: RequestLive): void {
    if (this.open.size >= MAX_OPEN_STREAMS) this.open.delete(this.open.keys().next().value!);
    this.open.set(r.id, r);
  }

  /** One response; `running` is the request while it is still in flight (responses sent during execute()). */
  response(e: RequestResponseEvent, id: string, modelKey: string, running: RequestLive | undefined): void {
    const r = running ?? this.open.get(id);
    const base: RequestLive = r ?? { id, modelKey, priority: 1, size: 1, tQueued: e.t, phase: 'done' };
    this.finished.push({
      ...base, id: `${id}#${e.index}`, phase: 'done', tDone: e.t, ok: e.outcome !== 'fail', response: e.index,
      ...(e.error !== undefined ? { message: e.error } : {}),
    });
    if (e.final) this.open.delete(id);
  }

  clear(): void {
    this.open.clear();
  }
}
