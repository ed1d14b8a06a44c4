/** A fake model manager + HTTP server for gateway tests that do not need real models. */
import { ControlGuard } from '../../apps/server/src/control/guard';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'socket.io-client';
import { connectSocket } from '../support/socket.ts';
import { errors, EventBus } from '@inferscope/core';
import type { ConfigChange, DynamicBatchingPatch, ModelAggregate, ModelSnapshot } from '@inferscope/core';
import { attachLiveGateway, type LiveGateway } from '../../apps/server/src/live/gateway.ts';
import type { ControlTarget, LiveGatewayDeps } from '../../apps/server/src/control/types.ts';

export class FakeManager implements ControlTarget {
  delay = 1000;
  calls: string[] = [];
  constructor(private bus: EventBus) {}
  async load(name: string) {
    this.calls.push(`load ${name}`);
  }
  async unload(name: string) {
    this.calls.push(`unload ${name}`);
  }
  async updateDynamicBatching(name: string, version: string | undefined, patch: DynamicBatchingPatch, by: string): Promise<ConfigChange[]> {
    this.calls.push(`batching ${name} ${JSON.stringify(patch)}`);
    if (name !== 'm') throw errors.UNKNOWN_MODEL(name);
    const changes: ConfigChange[] = [];
    if (patch.max_queue_delay_microseconds !== undefined) {
      changes.push({ path: 'dynamic_batching.max_queue_delay_microseconds', old: this.delay, new: patch.max_queue_delay_microseconds });
      this.delay = patch.max_queue_delay_microseconds;
    }
    this.bus.emit({ type: 'config.changed', t: 1, model: name, version: version ?? '1', changes, by });
    return changes;
  }
  async setInstanceCount(name: string, _v: string | undefined, _g: string | undefined, count: number): Promise<ConfigChange[]> {
    this.calls.push(`count ${name} ${count}`);
    return [];
  }
  async saveConfig(name: string, opts: { dryRun: boolean; version?: string }) {
    this.calls.push(`save ${name} ${opts.dryRun}`);
    return { path: `/r/${name}/config.pbtxt`, text: 'max_batch_size: 8\n', diff: '', backup: null };
  }
}

export const modelSnapshot: ModelSnapshot = {
  name: 'm',
  version: '1',
  state: 'READY',
  repository: '/r',
  backend: 'onnxruntime',
  platform: 'onnxruntime_onnx',
  config: { name: 'm', max_batch_size: 8 },
  instances: [{ name: 'm_0', group: 'm', kind: 'KIND_CPU', device: 'cpu', state: 'idle' }],
};

export interface Harness {
  bus: EventBus;
  manager: FakeManager;
  gateway: LiveGateway;
  url: string;
  connect(auth?: Record<string, unknown>): Promise<Socket>;
  close(): Promise<void>;
}

export async function startFakeServer({ token, ...extra }: Partial<LiveGatewayDeps> & { token?: string } = {}): Promise<Harness> {
  const bus = new EventBus();
  const manager = new FakeManager(bus);
  const http: Server = createServer();
  const aggregate: ModelAggregate = {
    model: 'm', version: '1', window_s: 1, throughput_per_s: 0, requests_per_s: 0,
    latency_us: { p50: 0, p90: 0, p99: 0, mean: 0 }, queue_us_mean: 0, compute_us_mean: 0, avg_batch_size: 0,
    batch_size_histogram: {}, queue_depth: {}, in_flight: 0,
    totals: { completed: 0, rejected: 0, failed: 0, batches: 0 }, memory_bytes: 0,
  };
  let seen = 0;
  const gateway = attachLiveGateway(http, {
    bus,
    guard: new ControlGuard(token),
    control: manager,
    source: {
      serverInfo: () => ({ name: 'inferscope', version: '0.1.0', extensions: [], model_control_mode: 'explicit', cpu_count: 2, gpu_count: 0 }),
      repositories: () => ['/r'],
      models: () => [modelSnapshot],
      memory: () => [{ device: 'cpu', used_bytes: 10, budget_bytes: 0, entries: [] }],
      now: () => 123,
    },
    stats: { add: () => void seen++, models: () => [{ ...aggregate, totals: { ...aggregate.totals, completed: seen } }] },
    frameIntervalMs: 20,
    statsIntervalMs: 100,
    ...extra,
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const clients: Socket[] = [];
  return {
    bus,
    manager,
    gateway,
    url,
    async connect(auth) {
      const s = await connectSocket(url, auth);
      clients.push(s);
      return s;
    },
    async close() {
      for (const c of clients) c.close();
      await gateway.close();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** Resolves with the next payload of `event` (set up before triggering it). */
export function next<T>(socket: Socket, event: string, timeoutMs = 3000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${event}' within ${timeoutMs} ms`)), timeoutMs);
    socket.once(event, (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

export function control<T = Record<string, unknown>>(socket: Socket, msg: unknown): Promise<T> {
  return socket.timeout(5000).emitWithAck('control', msg) as Promise<T>;
}
