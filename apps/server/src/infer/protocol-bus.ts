/**
 * The server's EventBus, which also says which protocol each request came in on. The scheduler (core)
 * builds `request.queued` and knows nothing of front ends; it emits that event synchronously inside
 * `enqueue()`. A front end brackets its enqueue with `enter(protocol)` / `leave(previous)`, and the bus
 * stamps the protocol onto the `request.queued` (and `request.rejected`) events emitted in between. One
 * comparison per event on the hot path; no per-request maps. Requests from in-process sources (load generator) carry no protocol.
 */
import { EventBus, type RequestProtocol, type SchedulerEvent } from '@inferscope/core';

export class ProtocolTaggingBus extends EventBus {
  private current: RequestProtocol | undefined;

  /**
   * Stamps `protocol` on what is emitted from now on and returns what was stamped before, which the caller
   * hands to `leave` (in a finally) once its one enqueue is done. Not a within(fn): the per-request path
   * makes no closure (see routes.ts).
   */
  enter(protocol: RequestProtocol): RequestProtocol | undefined {
    const previous = this.current;
    this.current = protocol;
    return previous;
  }

  leave(previous: RequestProtocol | undefined): void {
    this.current = previous;
  }

  override emit(event: SchedulerEvent): void {
    if (this.current === undefined) {
      super.emit(event);
      return;
    }
    // A refusal of this request before it was queued (queue full, unavailable) says where it came from too;
    // a refusal with queued_us belongs to another request that expired during this enqueue.
    if (event.type === 'request.queued' || (event.type === 'request.rejected' && event.queued_us === undefined)) event.protocol = this.current;
    super.emit(event);
  }
}
