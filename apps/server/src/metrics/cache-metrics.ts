/**
 * The response cache's metrics, with Triton's names: per model (only for the versions that enable the
 * cache, as Triton creates them only there) from the statistics collector's cache_hit / cache_miss, so
 * /metrics and the statistics extension agree; cache-wide gauges from the cache itself (Triton's local
 * cache reports them: entries, lookups, hits, misses, evictions, utilisation, lookup and insert time).
 */
import type { ResponseCacheStats } from '@inferscope/core/response-cache';
import type { MetricFamily } from './exposition';
import type { StatsCollector } from '../stats/collector';

export function cacheFamilies(
  stats: Pick<StatsCollector, 'totals'>,
  cache: () => ResponseCacheStats,
  enabled: (model: string, version: string) => boolean,
): MetricFamily[] {
  const rows = stats.totals().filter((r) => enabled(r.stat.name, r.stat.version));
  const perModel = (name: string, help: string, pick: (s: (typeof rows)[number]['stat']['inference_stats']) => number): MetricFamily => ({
    name, help, type: 'counter',
    samples: rows.map((r) => ({ labels: { model: r.stat.name, version: r.stat.version }, value: pick(r.stat.inference_stats) })),
  });
  const s = cache();
  const gauge = (name: string, help: string, value: number): MetricFamily => ({ name, help, type: 'gauge', samples: [{ labels: {}, value }] });
  return [
    perModel('nv_cache_num_hits_per_model', 'Number of cache hits per model', (i) => i.cache_hit.count),
    perModel('nv_cache_hit_duration_per_model', 'Total cache hit duration per model, in microseconds', (i) => i.cache_hit.ns / 1000),
    perModel('nv_cache_num_misses_per_model', 'Number of cache misses per model', (i) => i.cache_miss.count),
    perModel('nv_cache_miss_duration_per_model', 'Total cache miss (insert+lookup) duration per model, in microseconds', (i) => i.cache_miss.ns / 1000),
    gauge('nv_cache_num_entries', 'Number of responses stored in response cache', s.entries),
    gauge('nv_cache_num_lookups', 'Number of cache lookups in response cache', s.lookups),
    gauge('nv_cache_num_hits', 'Number of cache hits in response cache', s.hits),
    gauge('nv_cache_num_misses', 'Number of cache misses in response cache', s.misses),
    gauge('nv_cache_num_evictions', 'Number of cache evictions in response cache', s.evictions),
    gauge('nv_cache_util', 'Cache utilization [0.0 - 1.0]', s.utilization),
    gauge('nv_cache_lookup_duration', 'Total cache lookup duration (hit and miss), in microseconds', s.lookupUs),
    gauge('nv_cache_insertion_duration', 'Total cache insertion duration, in microseconds', s.insertUs),
  ];
}
