/** The load panel's A/B fields as a request: both patches parsed, the live values of what they touch kept for the restore. */
import type { ModelLive } from '../store/live-types';
import { activeInstances, batchingOf } from '../store/config-paths';
import { parseKnobPatch } from '@inferscope/core/live-config';
import { restoreFor, type AbRequest } from './ab-compare';

export function abRequest(m: ModelLive, run: { scenario: string; rate: number; duration: number; seed: number; rounds?: number }, textA: string, textB: string): AbRequest {
  const a = side('A', textA);
  const b = side('B', textB);
  const cur = batchingOf(m.config, activeInstances(m));
  const knobs: Record<string, unknown> = {
    max_queue_delay_microseconds: cur.maxQueueDelayUs, preferred_batch_size: cur.preferred, max_batch_size: cur.maxBatchSize, instance_count: cur.instances,
  };
  const batching = (m.config.dynamic_batching ?? {}) as Record<string, unknown>;
  const restore = restoreFor([a, b], (field) => (field in knobs ? knobs[field] : batching[field]));
  return { model: m.name, version: m.version, ...run, a, b, restore };
}

function side(label: string, text: string) {
  try {
    return parseKnobPatch(text);
  } catch (err) {
    throw new Error(`${label}: ${(err as Error).message}`);
  }
}
