/**
 * The sweep's view of a running InferScope server: config changes through the live control channel,
 * traffic and measurement through perf's step runner (perf_analyzer's stability rule: three windows
 * within the stability percentage), server-side queue/compute from the statistics API, instance memory
 * from a fresh snapshot.
 */
import { io as connect, type Socket } from 'socket.io-client';
import { WIRE, type ControlAccepted, type ControlAckOf, type ControlMessage, type Snapshot } from '@inferscope/core';
import type { HttpTarget } from '../../loadgen/targets';
import { runPerfStep } from '../perf/perf-step';
import type { StepMode } from '../perf/step-load';
import { readModelStats } from '../perf/server-stats';
import type { SweepConfig } from './search-space';
import type { SweepDeps } from './sweep';
import type { SweepResult } from '@inferscope/core';

export interface LiveTargetOptions {
  url: string;
  token?: string;
  model: string;
  version?: string;
  mode: StepMode;
  batchSize: number;
  measurementIntervalMs: number;
  stabilityPercent: number;
  maxTrials: number;
}

export interface LiveTarget extends SweepDeps {
  snapshot(): Promise<Snapshot>;
  send<M extends ControlMessage>(msg: M): Promise<ControlAccepted<M['action']>>;
  close(): void;
}

export async function connectLiveTarget(target: HttpTarget, o: LiveTargetOptions): Promise<LiveTarget> {
  const socket: Socket = connect(o.url, { transports: ['websocket'], auth: o.token ? { token: o.token } : undefined, reconnection: false });
  let latest: Snapshot | undefined;
  let waiting: Array<(s: Snapshot) => void> = [];
  socket.on(WIRE.snapshot, (s: Snapshot) => {
    latest = s;
    for (const w of waiting) w(s);
    waiting = [];
  });
  await new Promise<void>((resolve, reject) => {
    socket.once(WIRE.snapshot, () => resolve());
    socket.once('connect_error', (err) => reject(new Error(`cannot reach the live control channel at ${o.url}: ${err.message}`)));
  });
  if (!latest!.server.can_control) {
    socket.close();
    throw new Error(latest!.server.token_required ? 'the server refused control: give the right --control-token' : 'the server refused control');
  }
  const send = async <M extends ControlMessage>(msg: M): Promise<ControlAccepted<M['action']>> => {
    const ack = (await socket.timeout(60_000).emitWithAck(WIRE.control, o.token ? { ...msg, token: o.token } : msg)) as ControlAckOf<M['action']>;
    if (!ack.ok) throw new Error(`${msg.action} refused: ${ack.error}`);
    return ack;
  };
  const snapshot = () => new Promise<Snapshot>((resolve) => {
    waiting.push(resolve);
    socket.emit(WIRE.resync);
  });
  const memoryOf = (s: Snapshot) =>
    s.memory.flatMap((d) => d.entries).filter((e) => e.model === o.model && (!o.version || e.version === o.version)).reduce((n, e) => n + e.bytes, 0);

  return {
    send,
    snapshot,
    close: () => socket.close(),
    async apply(c: SweepConfig) {
      await send({
        action: 'setDynamicBatching', model: o.model, version: o.version,
        max_batch_size: c.max_batch_size, preferred_batch_size: c.preferred_batch_size,
        max_queue_delay_microseconds: c.max_queue_delay_microseconds,
      });
      await send({ action: 'setInstanceCount', model: o.model, version: o.version, count: c.instances });
    },
    measure: async () => measureConfig(target, o, async () => memoryOf(await snapshot())),
  };
}

export type MeasureOptions = Pick<LiveTargetOptions, 'model' | 'version' | 'mode' | 'batchSize' | 'measurementIntervalMs' | 'stabilityPercent' | 'maxTrials'>;

/**
 * Drives the traffic through the server's HTTP endpoint until three windows agree (perf_analyzer's rule)
 * and reads queue/compute from the statistics API: the same measurement for the CLI and the server-side
 * sweep, so their figures compare.
 */
export async function measureConfig(target: HttpTarget, o: MeasureOptions, memoryBytes: () => Promise<number>): Promise<Omit<SweepResult, 'config'>> {
  const statsPath = `/v2/models/${encodeURIComponent(o.model)}${o.version ? `/versions/${encodeURIComponent(o.version)}` : ''}/stats`;
  const step = await runPerfStep(target, { model: o.model, version: o.version, batchSize: o.batchSize }, o.mode, {
    measurementIntervalMs: o.measurementIntervalMs,
    stabilityPercent: o.stabilityPercent,
    maxTrials: o.maxTrials,
    serverStats: async () => readModelStats(await target.getJson(statsPath), o.model, o.version),
  });
  const s = step.server;
  return {
    throughput_per_s: step.throughput_per_s,
    latency_us: { p50: step.latency_us.p50, p95: step.latency_us.p95, p99: step.latency_us.p99 },
    avg_batch: s && s.executions > 0 ? s.inferences / s.executions : 0,
    queue_us: s?.queue_us ?? 0,
    compute_us: s ? s.compute_input_us + s.compute_infer_us + s.compute_output_us : 0,
    memory_bytes: await memoryBytes(),
    errors: step.error_count,
    stable: step.stable,
  };
}
