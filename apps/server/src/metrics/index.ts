/**
 * Prometheus metrics for InferScope: Triton's names and labels for inference, plus memory and CPU gauges.
 *
 *   const metrics = createMetrics(bus, { stats });   // the server's StatsCollector: one fold of the bus
 *   const server = await startMetricsServer({ port: 8002, host: '127.0.0.1', metrics });
 */
import type { DeviceMemory, EventBus } from '@inferscope/core';
import { renderFamilies, type MetricFamily } from './exposition';
import { inferenceFamilies } from './inference-metrics';
import { StatsCollector } from '../stats/collector';
import { CpuMetrics, MemoryMetrics } from './system-metrics';
import { IterativeMetrics } from './iterative-metrics';

export interface MetricsExtra {
  /** the statistics the inference series are read from (the server passes the one its extension serves) */
  stats?: StatsCollector;
  /** without `stats`: the versions that have series (idle ones show zeros), for a collector made here */
  models?: () => Array<{ name: string; version: string }>;
  /** memory already accounted before the metrics subscribed (e.g. MemoryLedger.snapshot()) */
  memory?: DeviceMemory[];
  /** report nv_cpu_* gauges (default true) */
  cpu?: boolean;
  /** further families to append (e.g. live gateway counters) */
  collectors?: Array<() => MetricFamily[]>;
}

export interface Metrics {
  /** the whole exposition text */
  render(): string;
  families(): MetricFamily[];
  close(): void;
}

export function createMetrics(bus: EventBus, extra: MetricsExtra = {}): Metrics {
  const owned = extra.stats ? undefined : new StatsCollector(bus, { models: extra.models });
  const stats = extra.stats ?? owned!;
  const memory = new MemoryMetrics(bus, extra.memory ?? []);
  const cpu = extra.cpu === false ? undefined : new CpuMetrics();
  const iterative = new IterativeMetrics(bus);
  const families = (): MetricFamily[] => [
    ...inferenceFamilies(stats),
    ...memory.families(),
    ...iterative.families(),
    ...(cpu ? cpu.families() : []),
    ...(extra.collectors ?? []).flatMap((c) => c()),
  ];
  return {
    families,
    render: () => renderFamilies(families()),
    close: () => {
      owned?.close();
      memory.close();
      iterative.close();
    },
  };
}

export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from './server';
export { renderFamilies, CONTENT_TYPE, type MetricFamily, type Sample } from './exposition';
export { failureReason } from './inference-metrics';
