/**
 * The fleet view's numbers, from each replica's own live stream (its latest `stats` message and memory
 * from its snapshot): per replica and for the fleet. Pure, so it is tested without sockets.
 */
import type { ModelAggregate } from '@inferscope/core';

export interface ReplicaState {
  name: string;
  /** prefix through the balancer, e.g. /replica/replica-0 */
  path: string;
  status: 'connecting' | 'connected' | 'disconnected';
  models: ModelAggregate[];
  memoryBytes: number;
  canControl: boolean;
  /** the replica's recent seconds, oldest first (the fleet view's per-replica charts) */
  history: ReplicaPoint[];
}

/** One second of one replica: what its row showed then. */
export interface ReplicaPoint {
  wallMs: number;
  inferencesPerS: number;
  p99Us: number;
}

/** Seconds of history each replica keeps for the charts (two of the longest chart window). */
export const REPLICA_HISTORY_S = 120;

export interface FleetRow {
  name: string;
  path: string;
  status: ReplicaState['status'];
  inferencesPerS: number;
  requestsPerS: number;
  /** requests waiting in every queue of every model */
  queueDepth: number;
  /** inferences per batch over the window, weighted by batches (not a mean of per-model means) */
  avgBatch: number;
  p99Us: number;
  memoryBytes: number;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export function replicaRow(r: ReplicaState): FleetRow {
  const up = r.status === 'connected';
  const models = up ? r.models : [];
  const inferences = sum(models.map((m) => m.throughput_per_s));
  const batchesPerS = sum(models.map((m) => (m.avg_batch_size > 0 ? m.throughput_per_s / m.avg_batch_size : 0)));
  return {
    name: r.name,
    path: r.path,
    status: r.status,
    inferencesPerS: inferences,
    requestsPerS: sum(models.map((m) => m.requests_per_s)),
    queueDepth: sum(models.flatMap((m) => Object.values(m.queue_depth))),
    avgBatch: batchesPerS > 0 ? inferences / batchesPerS : 0,
    // The worst model's p99 on this replica: the figure a latency budget is checked against.
    p99Us: Math.max(0, ...models.map((m) => m.latency_us.p99)),
    memoryBytes: up ? r.memoryBytes : 0,
  };
}

/** The history with one more second: the replica's row for these stats, the oldest dropped past the cap. */
export function withPoint(r: ReplicaState, wallMs: number, models: ModelAggregate[]): ReplicaPoint[] {
  const row = replicaRow({ ...r, status: 'connected', models });
  const next = [...r.history.filter((p) => p.wallMs < wallMs), { wallMs, inferencesPerS: row.inferencesPerS, p99Us: row.p99Us }];
  return next.slice(-REPLICA_HISTORY_S);
}

export function fleetTotals(rows: FleetRow[]): Omit<FleetRow, 'name' | 'path' | 'status'> & { up: number; replicas: number } {
  const inferences = sum(rows.map((r) => r.inferencesPerS));
  const batches = sum(rows.map((r) => (r.avgBatch > 0 ? r.inferencesPerS / r.avgBatch : 0)));
  return {
    replicas: rows.length,
    up: rows.filter((r) => r.status === 'connected').length,
    inferencesPerS: inferences,
    requestsPerS: sum(rows.map((r) => r.requestsPerS)),
    queueDepth: sum(rows.map((r) => r.queueDepth)),
    avgBatch: batches > 0 ? inferences / batches : 0,
    p99Us: Math.max(0, ...rows.map((r) => r.p99Us)),
    memoryBytes: sum(rows.map((r) => r.memoryBytes)),
  };
}
