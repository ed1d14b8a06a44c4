/**
 * The React-facing store (zustand vanilla): connection, server info, acknowledgements, load progress and
 * the URL state. High-rate data is in `live` (a LiveModel), read by canvases through rAF, never here.
 */
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { ControlMessage, LoadProgress, ServerInfo } from '@inferscope/core';
import { LiveModel } from './live-model';
import { DEFAULT_URL_STATE, type UrlState } from './url-state';
import { exposeForTests } from '../platform/test-hooks';

export type ConnectionStatus = 'connecting' | 'connected' | 'disconnected' | 'resyncing' | 'offline';

export interface AckEntry {
  id: number;
  at: number;
  action: string;
  summary: string;
  state: 'pending' | 'applied' | 'refused';
  error?: string;
  detail?: Record<string, unknown>;
}

export interface AppState extends UrlState {
  connection: { status: ConnectionStatus; attempts: number; error?: string; lastSnapshotAt?: number };
  server?: ServerInfo;
  structureRev: number;
  acks: AckEntry[];
  load: LoadProgress[];
  token: string;
  /** model key whose config drawer is open */
  inspect?: string;
  /**
   * The one model version the controls, save and the load act on (a model key), picked in Live Controls;
   * undefined: derived from the header's pick (controls/target.ts). One field, so they cannot disagree.
   */
  target?: string;
  /** the p99 budget the open lesson talks about (teaching): the latency chart draws it and its axis reaches it */
  latencyBudgetUs?: number;
}

export const live = new LiveModel();

export const appStore = createStore<AppState>(() => ({
  ...DEFAULT_URL_STATE,
  connection: { status: 'connecting', attempts: 0 },
  structureRev: 0,
  acks: [],
  load: [],
  token: '',
}));

export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(appStore, selector);
}

/** Copy the LiveModel's structural revision into React state when it moved (cheap to call per frame). */
export function syncStructure(): void {
  if (appStore.getState().structureRev !== live.structureRev) appStore.setState({ structureRev: live.structureRev });
}

/** A control message's fields as a person reads them ("model mlp_classifier · version 1 · dryRun true"), not JSON. */
export function readableFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${Array.isArray(v) ? `[${v.join(', ')}]` : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}

let ackSeq = 0;
export function pushAck(msg: ControlMessage): number {
  const id = ++ackSeq;
  const { action, ...rest } = msg as ControlMessage & { token?: string };
  delete (rest as { token?: string }).token;
  const entry: AckEntry = { id, at: Date.now(), action, summary: readableFields(rest), state: 'pending' };
  appStore.setState((s) => ({ acks: [entry, ...s.acks].slice(0, 30) }));
  return id;
}

export function resolveAck(id: number, ok: boolean, error?: string, detail?: Record<string, unknown>): void {
  appStore.setState((s) => ({
    acks: s.acks.map((a) => (a.id === id ? { ...a, state: ok ? 'applied' : 'refused', error, detail } : a)),
  }));
}

declare global {
  interface Window {
    /** read-only counters for browser tests and the dashboard benchmark (test-hooks.ts) */
    __inferscopeCounters?: () => { events: number; stats: number; timeline: number; models: number; requests: number; dropped: number; lastEventT: number };
  }
}
exposeForTests('__inferscopeCounters', () => ({
  events: live.eventsSeen, stats: live.stats.length, timeline: live.timeline.length, models: live.models.size, requests: live.requests.size, dropped: live.droppedEvents,
  lastEventT: live.now,
}));
