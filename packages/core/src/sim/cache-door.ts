/**
 * The simulator's response cache: core's ResponseCache at the door of every model whose config enables it,
 * before any queue, as the server's InferenceCache (response-cache/cached-infer.ts) stands in front of the
 * scheduler. A hit is answered at the door (never queued, batched or rate-limited); a miss goes on to its
 * scheduler and, answered without error, is stored. The same `request.cache` events the server emits.
 *
 * Not InferenceCache itself: that one answers with promises, and the simulator must stay synchronous on
 * its virtual clock (a promise would settle after the clock ran dry). The cache, its key and its counting
 * (`countsAsModelMiss`: two identical requests in flight, the second stores nothing) are the server's.
 *
 * A lookup costs `lookup_us` of modelled time (the virtual clock does not move while code runs): a hit is
 * answered, and a miss reaches its queue, that long after it arrived (its request.completed times, the
 * scheduler's, run from its queue; the lookup is the miss event's cache_us).
 */
import type { Clock } from '../clock/clock';
import type { EventBus } from '../events';
import type { Arrival } from '../load/arrivals';
import { encodeKey } from '../response-cache/key';
import { countsAsModelMiss, ResponseCache } from '../response-cache/response-cache';

export interface SimCacheOptions {
  /** the cache's size in bytes (`--cache-config local,size=N`), shared by every model that enables it */
  size_bytes: number;
  /** modelled µs one lookup takes (default 0) */
  lookup_us?: number;
  /** bytes of one stored response (default 64: a small classifier's scores) */
  response_bytes?: number;
}

const utf8 = new TextEncoder();

export class SimCacheDoor {
  readonly cache: ResponseCache<true>;

  constructor(private readonly o: SimCacheOptions, private readonly clock: Clock, private readonly timers: Clock, private readonly bus: EventBus) {
    this.cache = new ResponseCache<true>(o.size_bytes, { now: () => clock.now() });
  }

  /**
   * `a` (request `id` of `model`) at the door: a hit is answered here (`answered`); a miss is passed to
   * `run`, whose settle says whether it was answered without error (only then is it stored).
   */
  pass(model: string, id: string, a: Arrival, run: (settled: (ok: boolean) => void) => void, answered: () => void): void {
    const startUs = this.clock.now();
    // the server's key (model, version, inputs by name and bytes, shape, datatype, outputs): the input's
    // bytes stand for its key, an arrival without one has bytes no other request has
    const key = encodeKey({
      model, version: Number(a.version || 1), outputs: [],
      inputs: [{ name: 'INPUT0', datatype: 'BYTES', shape: [a.batch_size, ...(a.shape ?? [])], bytes: utf8.encode(a.input_key ?? `unique ${id}`) }],
    });
    const found = this.cache.lookup(key);
    const lookupUs = this.o.lookup_us ?? 0;
    const go = (): void => {
      if (found.hit) {
        this.emit(model, id, a, 'hit', lookupUs, this.clock.now() - startUs);
        answered();
        return;
      }
      run((ok) => {
        const { outcome } = this.cache.insert(key, ok ? { ok: true, value: true, bytes: this.o.response_bytes ?? 64 } : { ok: false });
        if (countsAsModelMiss(outcome)) this.emit(model, id, a, 'miss', lookupUs, 0);
        answered();
      });
    };
    if (lookupUs > 0) this.timers.setTimer(startUs + lookupUs, go);
    else go();
  }

  private emit(model: string, id: string, a: Arrival, outcome: 'hit' | 'miss', cacheUs: number, totalUs: number): void {
    this.bus.emit({
      type: 'request.cache', t: this.clock.now(), model, version: a.version || '1', request_id: id,
      outcome, cache_us: cacheUs, total_us: totalUs, queue_us: 0, batch_size: a.batch_size,
    });
  }
}
