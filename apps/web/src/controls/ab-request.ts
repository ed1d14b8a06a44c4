/** The load panel's A/B fields as a request: both patches parsed, the live values of what they touch kept for the restore. */
import type { ModelLive } from '../store/live-types';
import { activeInstances, batchingOf } from '../store/config-paths';
import { parsePatch, restoreFor, type AbRequest } from './ab-compare';

export function abRequest(m: ModelLive, run: { scenario: string; rate: number; duration: number; seed: number; rounds?: number }, textA: string, textB: string): AbRequest {
  const a = parsePatch(textA);
  const b = parsePatch(textB);
  const cur = batchingOf(m.config, activeInstances(m));
  const restore = restoreFor([a, b], {
    max_queue_delay_microseconds: cur.maxQueueDelayUs, preferred_batch_size: cur.preferred, max_batch_size: cur.maxBatchSize, instances: cur.instances,
  });
  return { model: m.name, version: m.version, ...run, a, b, restore };
}
