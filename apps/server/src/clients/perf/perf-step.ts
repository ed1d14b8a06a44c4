/**
 * One perf_analyzer step: keep the load running, measure windows until the last three agree within the
 * stability percentage (throughput and the stabilising latency) or the trial limit is reached, and
 * report the average of those last windows, client side and server side.
 */
import { percentile, standardDeviation } from '@inferscope/core/stats';
import { strictNumber } from '@inferscope/core/config';
import type { InferCall, InferTarget } from '../../loadgen/targets';
import { StepLoad, type StepMode, type Window } from './step-load';
import type { SequenceSlots } from '../../loadgen/sequences';
import { diffServerStats, type ServerModelStats, type ServerWindow } from './server-stats';

export interface StepOptions {
  measurementIntervalMs: number;
  /** stabilise on this latency percentile; average latency when absent (perf_analyzer's default) */
  percentile?: number;
  stabilityPercent: number;
  maxTrials: number;
  /** reads the server's statistics for the model; undefined when the server has none */
  serverStats?: () => Promise<ServerModelStats | undefined>;
  /** a stateful model's sequences (sequences.ts), shared by every step of a run */
  sequences?: { slots: SequenceSlots; open: number };
  onWindow?: (info: { trial: number; throughput: number; latency_us: number; sent: number; answered: number; errors: number }) => void;
}

export interface StepResult {
  mode: StepMode;
  stable: boolean;
  windows: number;
  request_count: number;
  error_count: number;
  errors: Record<string, number>;
  /** inferences (samples) per second */
  throughput_per_s: number;
  latency_us: { p50: number; p90: number; p95: number; p99: number; avg: number; std: number; stabilising: number };
  client_send_us: number;
  client_recv_us: number;
  response_wait_us: number;
  server?: ServerWindow;
}

interface Measured {
  window: Window;
  throughput: number;
  latency: number;
}

function windowLatency(w: Window, p: number | undefined): number {
  const ok = w.records.filter((r) => r.outcome.ok).map((r) => r.latency_us);
  if (ok.length === 0) return 0;
  if (p === undefined) return ok.reduce((a, b) => a + b, 0) / ok.length;
  return percentile(ok.sort((a, b) => a - b), p / 100); // p is perf_analyzer's percent
}

function isStable(last: Measured[], pct: number): boolean {
  if (last.length < 3) return false;
  const within = (xs: number[]) => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return mean === 0 ? xs.every((x) => x === 0) : xs.every((x) => Math.abs(x - mean) <= (pct / 100) * mean);
  };
  return within(last.map((m) => m.throughput)) && within(last.map((m) => m.latency));
}

export async function runPerfStep(target: InferTarget, call: InferCall, mode: StepMode, opts: StepOptions): Promise<StepResult> {
  const load = new StepLoad(target, call, mode, opts.sequences);
  const measured: Measured[] = [];
  const serverReads: (ServerModelStats | undefined)[] = [];
  let stable = false;
  try {
    // a short warm-up window is thrown away: first requests pay connection set-up and lazy loads
    await new Promise((r) => setTimeout(r, Math.min(500, opts.measurementIntervalMs / 2)));
    load.takeWindow();
    serverReads.push(await opts.serverStats?.());
    for (let trial = 1; trial <= opts.maxTrials; trial++) {
      await new Promise((r) => setTimeout(r, opts.measurementIntervalMs));
      const window = load.takeWindow();
      serverReads.push(await opts.serverStats?.());
      const okSamples = window.records.filter((r) => r.outcome.ok).reduce((n, r) => n + r.batch_size, 0);
      const m = { window, throughput: window.elapsed_s > 0 ? okSamples / window.elapsed_s : 0, latency: windowLatency(window, opts.percentile) };
      measured.push(m);
      opts.onWindow?.({ trial, throughput: m.throughput, latency_us: m.latency, sent: load.sent, answered: load.answered, errors: load.errors });
      if (isStable(measured.slice(-3), opts.stabilityPercent)) {
        stable = true;
        break;
      }
    }
  } finally {
    await load.stop();
  }
  const last = measured.slice(-3);
  const records = last.flatMap((m) => m.window.records);
  const ok = records.filter((r) => r.outcome.ok);
  const lat = ok.map((r) => r.latency_us).sort((a, b) => a - b);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const errors: Record<string, number> = {};
  for (const r of records) if (!r.outcome.ok) errors[r.outcome.error ?? `HTTP ${r.outcome.status}`] = (errors[r.outcome.error ?? `HTTP ${r.outcome.status}`] ?? 0) + 1;
  const before = serverReads[serverReads.length - 1 - last.length];
  const after = serverReads[serverReads.length - 1];
  return {
    mode,
    stable,
    windows: measured.length,
    request_count: ok.length,
    error_count: records.length - ok.length,
    errors,
    throughput_per_s: mean(last.map((m) => m.throughput)),
    latency_us: {
      p50: percentile(lat, 0.5),
      p90: percentile(lat, 0.9),
      p95: percentile(lat, 0.95),
      p99: percentile(lat, 0.99),
      avg: mean(lat),
      std: standardDeviation(lat),
      stabilising: mean(last.map((m) => m.latency)),
    },
    client_send_us: mean(ok.map((r) => r.outcome.send_us ?? 0)),
    client_recv_us: mean(ok.map((r) => r.outcome.recv_us ?? 0)),
    response_wait_us: mean(ok.map((r) => r.outcome.wait_us ?? 0)),
    server: before && after ? diffServerStats(before, after) : undefined,
  };
}

/** 'A:B:S' -> [A, A+S, ..., B]; 'A' -> [A]; 'A:B' -> step 1 (perf_analyzer's range syntax). */
export function parseRange(text: string, what: string, integer: boolean): number[] {
  // each number read strictly (core's plain digits: '1e3', '0x10', ' 7' are refused, not read)
  const parts = text.split(':').map((p) => strictNumber(p, integer));
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => !Number.isFinite(p) || p <= 0) || (integer && parts.some((p) => !Number.isInteger(p))))
    throw new Error(`${what} must be START[:END[:STEP]] with positive ${integer ? 'integers' : 'numbers'}, got '${text}'`);
  const [a, b = a, s = 1] = parts;
  if (b < a) throw new Error(`${what}: END ${b} is below START ${a}`);
  const out: number[] = [];
  for (let v = a; v <= b + 1e-9 && out.length < 1000; v += s) out.push(integer ? Math.round(v) : Number(v.toFixed(6)));
  return out;
}
