/**
 * The server's side of live reconfiguration. The change itself (merge, limits, policy, change list) is
 * core's live-config module, computed once (its refusals are INVALID_ARG); this file carries live
 * changes back into the config as written, for saveConfig.
 */
import type { ModelConfig } from '@inferscope/core/config';
import { parseLivePath, readLivePath, writeLivePath } from '@inferscope/core/live-config';

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

// core's planner refuses with a PolicyError, whose code is INVALID_ARG (HTTP 400, the control ack's error text)
export { planBatchingChange as applyBatchingPatch, planInstanceCount as applyInstanceCount } from '@inferscope/core/scheduler';

/**
 * Carries live changes into the config as written (before normalisation), so the saved file keeps the
 * user's text small and only changes what was changed live.
 */
export function carryChangesToRaw(raw: ModelConfig, live: ModelConfig, paths: Iterable<string>): ModelConfig {
  const out = clone(raw);
  for (const wire of paths) {
    const path = parseLivePath(wire);
    // `dynamic_batching` itself only says a patch created the message: its fields are paths of their own.
    if (path === undefined || path.kind === 'dynamic_batching') continue;
    if (path.kind === 'instance_count' && !live.instance_group?.[path.group]) continue;
    const value = clone(readLivePath(live, path));
    if (writeLivePath(out, path, value) || path.kind !== 'instance_count') continue;
    const liveGroup = live.instance_group?.[path.group];
    if (liveGroup && (!out.instance_group || out.instance_group.length === 0)) {
      // The file had no instance_group (Triton's default was used): write the count with the kind only.
      out.instance_group = [{ count: liveGroup.count, kind: liveGroup.kind }];
    }
  }
  return out;
}
