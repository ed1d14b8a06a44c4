/**
 * The load generator the control channel drives: starts scenario runs and replays, reports their
 * progress (into `stats.load`), stops them, and optionally records what reaches the server.
 *
 * By default every run sends from its own worker thread over loopback HTTP (generator/), so the load
 * does not run on the event loop whose timing it measures; mode 'inprocess' keeps the old direct path
 * for scheduler demos and is labelled as such in the progress.
 */
import { join } from 'node:path';
import type { EventBus, LoadProgress } from '@inferscope/core';
import { DEFAULT_LOAD_LIMITS, type LoadLimits } from '@inferscope/core/load';
import type { LoadControl, StartLoadRequest } from '../control/types';
import { Recorder, timestampName } from './recorder';
import type { RunProgress, RunResult } from './runner';
import type { LatencySummary } from './client-stats';
import { resolveScenario } from './scenario-resolver';
import { RunServerFigures } from './run-server-figures';
import type { InferTarget } from './targets';
import { checkTraceName } from '@inferscope/core/live';
import { launchInProcessRun, launchWorkerRun, type RunHandle } from './generator/launch';
import type { GeneratorJob, LoadSourceSpec } from './generator/job';

export interface LoadControllerOptions {
  bus: EventBus;
  /** where recordings are written and replays read from */
  recordingsDir: string;
  /** the server's address as a loopback client reaches it (it must be listening when a run starts) */
  url: () => string;
  /** the ModelManager as a target, for mode 'inprocess' */
  inProcessTarget?: () => InferTarget;
  limits?: LoadLimits;
  /** most runs at once (each costs CPU on the same cores as the server) */
  maxRuns?: number;
  /** send binary tensors (default true: what a fast client sends; JSON costs the server more to parse) */
  binary?: boolean;
  /** the served version and live config of a model, for a recording's header (what the traffic met) */
  describeModel?: (model: string, version?: string) => { version: string; config: Record<string, unknown> } | undefined;
}

interface Run {
  progress: LoadProgress;
  /** the server's figures over the run's window, frozen when its last request is answered */
  server: RunServerFigures;
  handle: RunHandle;
  done: Promise<RunResult>;
}

const PROGRESS_EVERY_MS = 250;

export class LoadController implements LoadControl {
  private runs = new Map<string, Run>();
  private nextId = 1;
  readonly limits: LoadLimits;
  constructor(private readonly opts: LoadControllerOptions) {
    this.limits = opts.limits ?? DEFAULT_LOAD_LIMITS;
  }

  /** A recording header's model fields (`model_version`: the header's `version` is the trace format's). */
  private recordedModel(model: string, version?: string): Record<string, unknown> {
    const d = this.opts.describeModel?.(model, version);
    return d ? { model, model_version: d.version, config: d.config } : { model, ...(version ? { model_version: version } : {}) };
  }

  private running(): number {
    return [...this.runs.values()].filter((r) => r.progress.state === 'running').length;
  }

  private job(source: LoadSourceSpec, o: { model?: string; version?: string; speed?: number; seed?: number }): GeneratorJob {
    return { url: this.opts.url(), binary: this.opts.binary ?? true, limits: this.limits, progressEveryMs: PROGRESS_EVERY_MS, source, ...o };
  }

  /** Plans and checks the run where it will send from; refuses with the reason (nothing sent) or resolves prepared. */
  private async launch(job: GeneratorJob, mode: 'http' | 'inprocess', progress: () => LoadProgress | undefined): Promise<RunHandle> {
    if (this.running() >= (this.opts.maxRuns ?? 4)) throw new Error(`${this.running()} load runs are already running; stop one first`);
    const onProgress = (p: RunProgress) => {
      const lp = progress();
      if (lp && lp.state === 'running') Object.assign(lp, p);
    };
    if (mode === 'inprocess') {
      if (!this.opts.inProcessTarget) throw new Error('in-process load is not available on this server');
      return launchInProcessRun(job, this.opts.inProcessTarget(), onProgress);
    }
    return launchWorkerRun(job, onProgress);
  }

  private begin(handle: RunHandle, model: string, scenario: string, recorder?: Recorder): string {
    const id = `load-${this.nextId++}`;
    const progress: LoadProgress = {
      id, model, scenario, state: 'running', sent: 0, answered: 0, errors: 0, skipped: 0, elapsed_s: 0, duration_s: handle.facts.duration_s, generator: handle.generator,
    };
    if (recorder) progress.recording = recorder.name;
    const server = new RunServerFigures(this.opts.bus, new Set(handle.facts.models.length > 0 ? handle.facts.models : [model]));
    const done = handle.done.then(
      async (r) => {
        Object.assign(progress, { sent: r.sent, answered: r.answered, errors: r.errors, skipped: r.skipped, elapsed_s: r.elapsed_s, client: r.client, server: server.freeze() });
        progress.state = r.error ? 'failed' : r.stopped ? 'stopped' : 'done';
        if (r.error) progress.reason = r.error;
        else if (r.truncated) progress.reason = `reached the limit of ${this.limits.max_requests_per_run} requests per run`;
        // the recording ends with what this run measured, so a replay can set its figures beside them
        if (recorder) await recorder.stop({ sent: r.sent, answered: r.answered, errors: r.errors, elapsed_s: r.elapsed_s, client: r.client, server: progress.server });
        return r;
      },
      async (err: unknown) => {
        progress.server = server.freeze();
        progress.state = 'failed';
        progress.reason = err instanceof Error ? err.message : String(err);
        if (recorder) await recorder.stop().catch(() => undefined);
        throw err;
      },
    );
    done.catch(() => undefined);
    this.runs.set(id, { progress, server, done, handle });
    // Finished runs are kept for a while so the dashboard can show their end state, but not forever.
    const finished = [...this.runs.entries()].filter(([, r]) => r.progress.state !== 'running');
    for (const [oldId] of finished.slice(0, Math.max(0, finished.length - 16))) this.runs.delete(oldId);
    handle.go();
    return id;
  }

  async start(req: StartLoadRequest, _by: string): Promise<{ id: string; recording?: string }> {
    const s = resolveScenario(req, this.limits);
    let run: Run | undefined;
    const handle = await this.launch(this.job({ kind: 'scenario', scenario: s.scenario, overrides: s.overrides }, { model: req.model, version: req.version, seed: 1 }), req.mode ?? 'http', () => run?.progress);
    // The recorder listens on the server's bus before the generator sends its first request.
    const recorder = req.record
      ? new Recorder(this.opts.bus, this.opts.recordingsDir, timestampName(req.model), new Set([req.model, ...handle.facts.models]), { scenario: s.name, seed: s.seed, ...this.recordedModel(req.model, req.version) })
      : undefined;
    const id = this.begin(handle, req.model, s.name, recorder);
    run = this.runs.get(id);
    return recorder ? { id, recording: recorder.name } : { id };
  }

  async startReplay(req: { trace: string; speed?: number; model?: string }, _by: string): Promise<{ id: string }> {
    const path = join(this.opts.recordingsDir, checkTraceName(req.trace));
    let run: Run | undefined;
    const handle = await this.launch(this.job({ kind: 'trace', path, label: req.trace, model: req.model }, { speed: req.speed ?? 1 }), 'http', () => run?.progress);
    const id = this.begin(handle, handle.facts.models.join(','), `replay:${req.trace}`);
    run = this.runs.get(id);
    // the recorded run's own figures beside the replay's (the dashboard and `replay` read one against the other)
    if (run && handle.facts.recorded) run.progress.recorded = handle.facts.recorded;
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

  /** `written` < `arrivals` and `error` say that the file lost lines (e.g. the disk filled up). */
  async stopRecording(id?: string): Promise<{ id: string; recording: string; arrivals: number; written: number; error?: string }[]> {
    const out: { id: string; recording: string; arrivals: number; written: number; error?: string }[] = [];
    for (const [rid, r] of [...this.recordings]) {
      if (id !== undefined && rid !== id) continue;
      this.recordings.delete(rid);
      const info = await r.recorder.stop();
      out.push({ id: rid, recording: info.name, arrivals: info.arrivals, written: info.written, ...(info.error ? { error: info.error } : {}) });
    }
    return out;
  }

  stop(id?: string): string[] {
    const stopped: string[] = [];
    for (const [rid, run] of this.runs) {
      if (run.progress.state !== 'running' || (id !== undefined && rid !== id)) continue;
      run.handle.stop();
      stopped.push(rid);
    }
    return stopped;
  }

  progress(): LoadProgress[] {
    const recs = [...this.recordings.values()].map((r) => {
      const elapsed = (performance.now() - r.started) / 1000;
      // for a recording, `sent` counts the arrivals captured so far
      const failed = r.recorder.error;
      return { ...r.progress, sent: r.recorder.arrivals, answered: r.recorder.arrivals, elapsed_s: elapsed, duration_s: elapsed, ...(failed ? { state: 'failed' as const, recording_error: failed } : {}) };
    });
    return [...[...this.runs.values()].map((r) => ({ ...r.progress, server: r.server.figures() })), ...recs];
  }

  /** Where a run's generator runs (its thread id and process id), for tests and diagnostics. */
  where(id: string): { generator: 'worker' | 'inprocess'; thread_id: number; pid: number } {
    const run = this.runs.get(id);
    if (!run) throw new Error(`no load run '${id}'`);
    return { generator: run.handle.generator, thread_id: run.handle.thread_id, pid: run.handle.pid };
  }

  /** Resolves when the run has finished (all its requests answered) with its client-side summary. */
  async wait(id: string): Promise<{ result: RunResult; summary: LatencySummary }> {
    const run = this.runs.get(id);
    if (!run) throw new Error(`no load run '${id}'`);
    const result = await run.done;
    return { result, summary: result.summary };
  }

  /** Stops every run and waits for their requests to be answered. */
  async close(): Promise<void> {
    this.stop();
    await this.stopRecording();
    await Promise.allSettled([...this.runs.values()].map((r) => r.done));
  }
}
