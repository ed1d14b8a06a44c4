/**
 * Memory and CPU gauges. Device memory comes from `memory` events (the MemoryLedger's accounting: our
 * own inferscope_* names, plus Triton's nv_gpu_memory_used_bytes for GPU devices); CPU figures come from
 * the operating system like Triton's nv_cpu_* metrics.
 */
import os from 'node:os';
import type { EventBus, MemoryEvent } from '@inferscope/core';
import type { MetricFamily } from './exposition';

export class MemoryMetrics {
  private readonly devices = new Map<string, MemoryEvent>();
  private readonly off: () => void;

  constructor(bus: EventBus, initial: Array<Omit<MemoryEvent, 'type' | 't'>> = []) {
    for (const d of initial) this.devices.set(d.device, { type: 'memory', t: 0, ...d });
    this.off = bus.on((e) => {
      if (e.type === 'memory') this.devices.set(e.device, e);
    });
  }

  close(): void {
    this.off();
  }

  families(): MetricFamily[] {
    const devs = [...this.devices.values()].sort((a, b) => (a.device < b.device ? -1 : 1));
    const gpus = devs.filter((d) => d.device.startsWith('gpu'));
    const families: MetricFamily[] = [
      {
        name: 'inferscope_memory_used_bytes',
        help: 'Memory accounted to model instances per device (measured or modelled)',
        type: 'gauge',
        samples: devs.map((d) => ({ labels: { device: d.device }, value: d.used_bytes })),
      },
      {
        name: 'inferscope_memory_budget_bytes',
        help: 'Memory budget per device (0 = no budget)',
        type: 'gauge',
        samples: devs.map((d) => ({ labels: { device: d.device }, value: d.budget_bytes })),
      },
      {
        name: 'inferscope_instance_memory_bytes',
        help: 'Memory accounted to one model instance',
        type: 'gauge',
        samples: devs.flatMap((d) =>
          d.entries.map((e) => ({
            labels: { model: e.model, version: e.version, instance: e.instance, device: d.device, source: e.source },
            value: e.bytes,
          })),
        ),
      },
    ];
    if (gpus.length > 0) {
      families.push({
        name: 'nv_gpu_memory_used_bytes',
        help: 'GPU used memory, in bytes (as accounted by InferScope)',
        type: 'gauge',
        samples: gpus.map((d) => ({ labels: { gpu_uuid: d.device }, value: d.used_bytes })),
      });
    }
    return families;
  }
}

/** CPU utilisation between successive reads (first read: since boot), as a 0..1 ratio like Triton. */
export class CpuMetrics {
  private last = CpuMetrics.times();
  private value = 0;

  private static times(): { idle: number; total: number } {
    let idle = 0;
    let total = 0;
    for (const c of os.cpus()) {
      const t = c.times;
      idle += t.idle;
      total += t.user + t.nice + t.sys + t.idle + t.irq;
    }
    return { idle, total };
  }

  utilization(): number {
    const now = CpuMetrics.times();
    const dTotal = now.total - this.last.total;
    const dIdle = now.idle - this.last.idle;
    if (dTotal <= 0) return this.value; // too soon to tell: keep the previous window's figure
    this.last = now;
    this.value = Math.min(1, Math.max(0, 1 - dIdle / dTotal));
    return this.value;
  }

  families(): MetricFamily[] {
    const total = os.totalmem();
    return [
      { name: 'nv_cpu_utilization', help: 'CPU utilization rate [0.0 - 1.0]', type: 'gauge', samples: [{ labels: {}, value: this.utilization() }] },
      { name: 'nv_cpu_memory_total_bytes', help: 'CPU total memory (RAM), in bytes', type: 'gauge', samples: [{ labels: {}, value: total }] },
      { name: 'nv_cpu_memory_used_bytes', help: 'CPU used memory (RAM), in bytes', type: 'gauge', samples: [{ labels: {}, value: total - os.freemem() }] },
      // Triton's pinned (page-locked) host memory pool for GPU copies. Nothing here is pinned (tensors reach
      // the workers by transfer, the stubs by pipe), so both are 0, stated rather than left out for
      // dashboards and alerts written against Triton.
      { name: 'nv_pinned_memory_pool_total_bytes', help: 'Pinned memory pool total memory size, in bytes', type: 'gauge', samples: [{ labels: {}, value: 0 }] },
      { name: 'nv_pinned_memory_pool_used_bytes', help: 'Pinned memory pool used memory size, in bytes', type: 'gauge', samples: [{ labels: {}, value: 0 }] },
    ];
  }
}
