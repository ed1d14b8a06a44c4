/**
 * V8 heap settings of a serving process, applied once by buildApp before anything serves.
 *
 * Allocation-site pretenuring off. V8 watches how many objects from each allocation site survive a
 * scavenge. If enough of them do, it allocates that site's objects straight into the old generation,
 * and it keeps that decision. Under a steady stream of requests the decision can land, by chance, on
 * sites whose objects live only as long as one request. The likely mechanism, inferred from the figures
 * below rather than traced: they sit in the old space as garbage that only a full GC frees, and their
 * pointers keep young objects alive at every scavenge. Once a process falls into that mode, it stays.
 *
 * Measured with grpc-js on this host (bench/serve/README.md, "gRPC's two GC modes"): InferScope and the
 * bare gRPC floor alike settled in it in about two runs of three. In that mode 2.6-3 MB survived each
 * scavenge instead of ~0.4, pauses ran 5-7 ms instead of 1.5, and throughput was 30-40% lower. With
 * pretenuring off every run was in the good mode. Request-shaped garbage gains nothing from
 * pretenuring. Long-lived state (sessions, caches, the model repository) costs one or two extra copies
 * before it is promoted anyway.
 */
import { setFlagsFromString } from 'node:v8';

const SERVING_V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

let applied = false;

/**
 * Sets SERVING_V8_FLAGS for this process (all its isolates, worker threads included). Idempotent. These
 * flags are read at each GC, so setting them after start takes effect from the next collection on.
 */
export function applyServingHeapFlags(): void {
  if (applied) return;
  applied = true;
  for (const flag of SERVING_V8_FLAGS) {
    try {
      setFlagsFromString(flag);
    } catch {
      // A V8 that froze its flags after start: the server serves the same, only without the tuning.
    }
  }
}
