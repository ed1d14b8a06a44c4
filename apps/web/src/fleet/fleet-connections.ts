/**
 * One Socket.IO connection per replica, through the balancer's per-replica prefix (same origin, so no
 * CORS and the control token rules apply as on each replica's own page). Keeps each replica's latest
 * stats and memory in a small vanilla store; control messages go to one replica or to all.
 */
import { io, type Socket } from 'socket.io-client';
import { createStore } from 'zustand/vanilla';
import { WIRE, type ControlAck, type ControlMessage, type Snapshot, type StatsMessage } from '@inferscope/core';
import { withPoint, type ReplicaState } from './fleet-rows';

export interface FleetDescription {
  replicas: Array<{ name: string; path: string; url: string }>;
}

export interface FleetStore {
  replicas: ReplicaState[];
  error?: string;
}

export const fleetStore = createStore<FleetStore>(() => ({ replicas: [] }));

const ACK_TIMEOUT_MS = 8000;

export interface FleetConnections {
  control(names: string[], msg: ControlMessage): Promise<Array<{ name: string; ack: ControlAck }>>;
  close(): void;
}

export function connectFleet(description: FleetDescription, token?: string): FleetConnections {
  const sockets = new Map<string, Socket>();
  fleetStore.setState({
    replicas: description.replicas.map((r) => ({ name: r.name, path: r.path, status: 'connecting', models: [], memoryBytes: 0, canControl: false, history: [] })),
  });
  const patch = (name: string, p: Partial<ReplicaState>) =>
    fleetStore.setState((s) => ({ replicas: s.replicas.map((r) => (r.name === name ? { ...r, ...p } : r)) }));

  for (const r of description.replicas) {
    const socket = io('/', { path: `${r.path}/socket.io`, transports: ['websocket'], auth: (cb) => cb(token ? { token } : {}), reconnectionDelayMax: 4000 });
    sockets.set(r.name, socket);
    socket.on('disconnect', () => patch(r.name, { status: 'disconnected' }));
    socket.on('connect_error', () => patch(r.name, { status: 'disconnected' }));
    socket.on(WIRE.snapshot, (s: Snapshot) => {
      // the replica's recent seconds (the snapshot's history) fill its charts at once
      let cur = fleetStore.getState().replicas.find((x) => x.name === r.name);
      for (const st of s.history?.stats ?? []) if (cur) cur = { ...cur, history: withPoint(cur, st.wall_ms, st.models) };
      patch(r.name, {
        status: 'connected',
        canControl: s.server.can_control,
        memoryBytes: s.memory.reduce((n, d) => n + d.used_bytes, 0),
        models: s.stats?.models ?? [],
        history: cur?.history ?? [],
      });
    });
    socket.on(WIRE.stats, (s: StatsMessage) => {
      const cur = fleetStore.getState().replicas.find((x) => x.name === r.name);
      patch(r.name, { status: 'connected', models: s.models, history: cur ? withPoint(cur, s.wall_ms, s.models) : [] });
    });
  }

  return {
    control(names, msg) {
      return Promise.all(
        names.map(
          (name) =>
            new Promise<{ name: string; ack: ControlAck }>((resolve) => {
              const socket = sockets.get(name);
              if (!socket?.connected) return resolve({ name, ack: { ok: false, error: 'not connected', code: 'UNAVAILABLE' } });
              socket.timeout(ACK_TIMEOUT_MS).emit(WIRE.control, token ? { ...msg, token } : msg, (err: Error | null, ack: ControlAck) =>
                resolve({ name, ack: err ? { ok: false, error: `no answer within ${ACK_TIMEOUT_MS / 1000} s`, code: 'UNAVAILABLE' } : ack }),
              );
            }),
        ),
      );
    },
    close() {
      for (const s of sockets.values()) s.close();
    },
  };
}
