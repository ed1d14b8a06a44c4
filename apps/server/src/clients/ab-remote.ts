/**
 * A/B against a running server from outside: config changes through the live control channel
 * (socket.io-client, with the control token when the server has one), server figures from the
 * statistics API before and after each run.
 */
import { io as connect, type Socket } from 'socket.io-client';
import type { ConfigChange, ControlAckOf, ControlMessageOf, DynamicBatchingPatch } from '@inferscope/core';
import type { HttpTarget } from '../loadgen/targets';
import type { ServerSide, ServerWatcher } from './ab-compare';
import { diffServerStats, readBatchHistogram, readFailCount, readModelStats } from './perf/server-stats';

export interface RemoteControl {
  updateDynamicBatching(name: string, version: string | undefined, patch: DynamicBatchingPatch, by: string): Promise<ConfigChange[]>;
  setInstanceCount(name: string, version: string | undefined, group: string | undefined, count: number, by: string): Promise<ConfigChange[]>;
  close(): void;
}

export async function connectControl(url: string, token?: string): Promise<RemoteControl> {
  const socket: Socket = connect(url, { transports: ['websocket'], auth: token ? { token } : undefined, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (err) => reject(new Error(`cannot reach the live control channel at ${url}: ${err.message}`)));
  });
  const send = async (msg: ControlMessageOf<'setDynamicBatching' | 'setInstanceCount'>): Promise<ConfigChange[]> => {
    const ack = (await socket.timeout(30_000).emitWithAck('control', msg)) as ControlAckOf<'setDynamicBatching' | 'setInstanceCount'>;
    if (!ack.ok) throw new Error(ack.error);
    return ack.changes;
  };
  return {
    updateDynamicBatching: (model, version, patch) => send({ action: 'setDynamicBatching', model, version, ...patch }),
    setInstanceCount: (model, version, group, count) => send({ action: 'setInstanceCount', model, version, ...(group === undefined ? {} : { group }), count }),
    close: () => socket.close(),
  };
}

/** Server side of a run from two statistics reads. */
export function statsApiWatcher(target: HttpTarget, model: string, version?: string): ServerWatcher {
  const path = `/v2/models/${encodeURIComponent(model)}${version ? `/versions/${encodeURIComponent(version)}` : ''}/stats`;
  return async () => {
    const before = await target.getJson(path);
    return {
      async stop(): Promise<ServerSide> {
        const after = await target.getJson(path);
        const w = diffServerStats(readModelStats(before, model, version), readModelStats(after, model, version));
        const h0 = readBatchHistogram(before, model, version);
        const h1 = readBatchHistogram(after, model, version);
        const hist: Record<string, number> = {};
        for (const [size, n] of Object.entries(h1)) if (n - (h0[size] ?? 0) > 0) hist[size] = n - (h0[size] ?? 0);
        return {
          batches: w.executions,
          avg_batch_size: w.executions > 0 ? w.inferences / w.executions : 0,
          batch_size_histogram: hist,
          completed: w.requests,
          rejected: readFailCount(after, model, version) - readFailCount(before, model, version),
          queue_us_mean: w.queue_us,
        };
      },
    };
  };
}
