/**
 * The server-side load generator the control channel drives: starts scenario runs and replays, reports
 * their progress (into `stats.load`), stops them, and optionally records what they send.
 */
import { join } from 'node:path';
import type { EventBus, LoadProgress } from '@inferscope/core';
import type { LoadControl, StartLoadRequest } from '../live/types';
import { Recorder, timestampName } from './recorder';
import type { ArrivalPlan } from '@inferscope/core/load/index.ts';
import { runArrivals, runPlan, summarize, type LatencySummary, type RunResult } from './runner';
import { resolveScenario } from './scenario-resolver';
import type { InferTarget } from './targets';
import { readTraceFile } from './trace-file';
import { checkTraceName } from '../live/control-validation';

/** Turns a startLoad request into core's arrival plan. Throws on a bad scenario. */
export type ScenarioResolver = (req: StartLoadRequest) => ArrivalPlan;

export interface LoadControllerOptions {
  bus: EventBus;
  /** where recordings are written and replays read from */
  recordingsDir: string;
  /** default: core's presets and scenario JSON */
  resolve?: ScenarioResolver;
  /** targets per mode: HTTP needs the server to listen, so it is created lazily */
  target: (mode: 'http' | 'inprocess') => InferTarget;
  /** most runs at once (each costs CPU on the same cores as the server) */
  maxRuns?: number;
}

interface Run {
  progress: LoadProgress;
  abort: AbortController;
  done: Promise<RunResult>;
  summary?: LatencySummary;
}

export class LoadController implements LoadControl {
  private runs = new Map<string, Run>();
  private nextId = 1;
  constructor(private readonly opts: LoadControllerOptions) {}

  private begin(model: string, scenario: string, durationS: number, recording?: Recorder): { id: string; run: Run; onProgress: (c: { sent: number; answered: number; errors: number; elapsed_s: number }) => void } {
    const running = [...this.runs.values()].filter((r) => r.progress.state === 'running').length;
    if (running >= (this.opts.maxRuns ?? 4)) throw new Error(`${running} load runs are already running; stop one first`);
    const id = `load-${this.nextId++}`;
    const progress: LoadProgress = { id, model, scenario, state: 'running', sent: 0, answered: 0, errors: 0, elapsed_s: 0, duration_s: durationS };
    if (recording) progress.recording = recording.name;
    const run: Run = { progress, abort: new AbortController(), done: Promise.resolve(undefined as never) };
    this.runs.set(id, run);
    // Finished runs are kept for a while so the dashboard can show their end state, but not forever.
    const finished = [...this.runs.entries()].filter(([, r]) => r.progress.state !== 'running');
    for (const [oldId] of finished.slice(0, Math.max(0, finished.length - 16))) this.runs.delete(oldId);
    return { id, run, onProgress: (c) => Object.assign(progress, c) };
  }

  private track(run: Run, p: Promise<RunResult>, recorder?: Recorder): void {
    run.done = p.then(
      async (r) => {
        run.progress.state = r.stopped ? 'stopped' : 'done';
        Object.assign(run.progress, { sent: r.sent, answered: r.answered, errors: r.errors, elapsed_s: r.elapsed_s });
        run.summary = summarize(r);
        if (recorder) await recorder.stop();
        return r;
      },
      async (err: unknown) => {
        run.progress.state = 'failed';
        if (recorder) await recorder.stop().catch(() => undefined);
        throw err;
      },
    );
    run.done.catch(() => undefined);
  }

  async start(req: StartLoadRequest, _by: string): Promise<{ id: string; recording?: string }> {
    const plan = (this.opts.resolve ?? resolveScenario)(req);
    const target = this.opts.target(req.mode ?? 'http');
    const scenarioName = plan.scenario.name;
    const models = new Set([req.model, ...(plan.scenario.models ?? []).map((m) => m.value)]);
    // Refuse up front: a run whose every request fails teaches nothing and floods the logs.
    for (const m of models) await target.check(m, m === req.model ? req.version : undefined);
    const recorder = req.record
      ? new Recorder(this.opts.bus, this.opts.recordingsDir, timestampName(req.model), models, { scenario: scenarioName, seed: plan.seed })
      : undefined;
    let started: ReturnType<LoadController['begin']>;
    try {
      started = this.begin(req.model, scenarioName, plan.duration_us / 1e6, recorder);
    } catch (err) {
      await recorder?.stop();
      throw err;
    }
    const { id, run, onProgress } = started;
    this.track(run, runPlan(target, plan, { signal: run.abort.signal, onProgress, progressEveryMs: 250, model: req.model, version: req.version }), recorder);
    return recorder ? { id, recording: recorder.name } : { id };
  }

  async startReplay(req: { trace: string; speed?: number; model?: string }, _by: string): Promise<{ id: string }> {
    const trace = await readTraceFile(join(this.opts.recordingsDir, checkTraceName(req.trace)));
    let arrivals = trace.arrivals;
    // Replaying onto another model: same arrival pattern, the target model's inputs.
    if (req.model) arrivals = arrivals.map((a) => ({ ...a, model: req.model!, version: undefined }));
    if (arrivals.length === 0) throw new Error(`trace ${req.trace} has no arrivals`);
    const speed = req.speed ?? 1;
    const target = this.opts.target('http');
    const distinct = [...new Set(arrivals.map((a) => a.model))];
    for (const m of distinct) {
      if (!m) throw new Error(`trace ${req.trace} has arrivals without a model: give 'model' to replay them onto one`);
      await target.check(m);
    }
    const models = distinct.join(',');
    const { id, run, onProgress } = this.begin(models, `replay:${req.trace}`, arrivals[arrivals.length - 1].t_us / 1e6 / speed);
    this.track(run, runArrivals(target, arrivals, { signal: run.abort.signal, speed, onProgress, progressEveryMs: 250 }));
    return { id };
  }

  private recordings = new Map<string, { recorder: Recorder; progress: LoadProgress; started: number }>();

  startRecording(models: string[] | undefined, _by: string): { id: string; recording: string } {
    if (this.recordings.size >= 4) throw new Error('4 recordings are already running; stop one first');
    const id = `rec-${this.nextId++}`;
    const recorder = new Recorder(this.opts.bus, this.opts.recordingsDir, timestampName(models?.length === 1 ? models[0] : 'live'), models ? new Set(models) : undefined, { source: 'live' });
    const progress: LoadProgress = { id, model: models?.join(',') ?? '*', scenario: 'recording', state: 'running', sent: 0, answered: 0, errors: 0, elapsed_s: 0, duration_s: 0, recording: recorder.name };
    this.recordings.set(id, { recorder, progress, started: performance.now() });
    return { id, recording: recorder.name };
  }

  async stopRecording(id?: string): Promise<{ id: string; recording: string; arrivals: number }[]> {
    const out: { id: string; recording: string; arrivals: number }[] = [];
    for (const [rid, r] of [...this.recordings]) {
      if (id !== undefined && rid !== id) continue;
      this.recordings.delete(rid);
      const info = await r.recorder.stop();
      out.push({ id: rid, recording: info.name, arrivals: info.arrivals });
    }
    return out;
  }

  stop(id?: string): string[] {
    const stopped: string[] = [];
    for (const [rid, run] of this.runs) {
      if (run.progress.state !== 'running' || (id !== undefined && rid !== id)) continue;
      run.abort.abort();
      stopped.push(rid);
    }
    return stopped;
  }

  progress(): LoadProgress[] {
    const recs = [...this.recordings.values()].map((r) => {
      const elapsed = (performance.now() - r.started) / 1000;
      // for a recording, `sent` counts the arrivals captured so far
      return { ...r.progress, sent: r.recorder.arrivals, answered: r.recorder.arrivals, elapsed_s: elapsed, duration_s: elapsed };
    });
    return [...[...this.runs.values()].map((r) => ({ ...r.progress })), ...recs];
  }

  /** Resolves when the run has finished (all its requests answered) with its client-side summary. */
  async wait(id: string): Promise<{ result: RunResult; summary: LatencySummary }> {
    const run = this.runs.get(id);
    if (!run) throw new Error(`no load run '${id}'`);
    const result = await run.done;
    return { result, summary: run.summary ?? summarize(result) };
  }

  /** Stops every run and waits for their requests to be answered. */
  async close(): Promise<void> {
    this.stop();
    await this.stopRecording();
    await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }
}
