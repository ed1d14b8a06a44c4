/**
 * The rate limiter as the State view reads it: the latest stats message's `rate_limiter` (once a second,
 * never sampled), and whether one instance of a model version waits for its resources right now.
 */
import type { RateLimiterSnapshot } from '@inferscope/core';
import type { LiveModel } from './live-model';

export function latestLimiter(live: LiveModel): RateLimiterSnapshot | undefined {
  return live.stats.last()?.rate_limiter;
}

/**
 * The limiter names an instance `<model>:<version>:<instance>` (`<version>~<n>` after a reload: the
 * scheduler's id prefix, models/default-runtime.ts), so a version's instance is matched by both ends.
 */
export function limitedIdOf(id: string, model: string, version: string, instance: string): boolean {
  const head = `${model}:${version}`;
  return id.endsWith(`:${instance}`) && (id === `${head}:${instance}` || id.startsWith(`${head}~`));
}

export function waitsForResources(snap: RateLimiterSnapshot | undefined, model: string, version: string, instance: string): boolean {
  return snap?.instances.some((i) => i.state === 'waiting' && limitedIdOf(i.id, model, version, instance)) ?? false;
}

/** An instance id as a person reads it: `model v1 · instance` (the version only where it says something). */
export function limitedLabel(id: string): string {
  const [model, version, ...rest] = id.split(':');
  return rest.length ? `${model} v${version} · ${rest.join(':')}` : id;
}
