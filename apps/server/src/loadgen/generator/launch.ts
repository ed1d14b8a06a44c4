/**
 * Starting a prepared run, in its own thread (the default) or on the server's loop (in-process mode).
 * Both hand back the same RunHandle: the controller neither knows nor cares where the sending happens.
 */
import { Worker } from 'node:worker_threads';
import { RealClock } from '@inferscope/core/clock';
import { runLoad, type RunProgress, type RunResult } from '../runner';
import type { InferTarget } from '../targets';
import { prepareJob, type FromGenerator, type GeneratorJob, type PreparedFacts, type ToGenerator } from './job';

export interface RunHandle {
  /** 'worker': own thread and event loop, over HTTP; 'inprocess': the server's loop, the scheduler directly */
  readonly generator: 'worker' | 'inprocess';
  readonly facts: PreparedFacts;
  /** where the generator runs (a worker's thread id; the process id either way) */
  readonly thread_id: number;
  readonly pid: number;
  /** begin sending (the controller first attaches what must see the first request, e.g. a recorder) */
  go(): void;
  stop(): void;
  /** every sent request answered; rejects when the generator failed mid-run */
  readonly done: Promise<RunResult>;
}

export type OnProgress = (p: RunProgress) => void;

const WORKER_URL = new URL('./worker.mjs', import.meta.url);
/** a generator that goes wrong must not take the server's memory with it */
const WORKER_HEAP_MB = 512;

/** Resolves once the thread has planned and checked the job (or rejects with the reason it refused). */
export function launchWorkerRun(job: GeneratorJob, onProgress: OnProgress): Promise<RunHandle> {
  // No inherited execArgv: the thread registers tsx itself (worker.mjs) and needs none of the parent's flags.
  const worker = new Worker(WORKER_URL, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  const post = (m: ToGenerator) => worker.postMessage(m);
  let settleDone: { resolve(r: RunResult): void; reject(e: Error): void } | undefined;
  const done = new Promise<RunResult>((resolve, reject) => (settleDone = { resolve, reject }));
  done.catch(() => undefined);
  let finished = false;
  return new Promise<RunHandle>((resolve, reject) => {
    let prepared = false;
    const fail = (error: Error) => {
      if (finished) return;
      finished = true;
      if (prepared) settleDone!.reject(error);
      else reject(error);
    };
    worker.on('message', (m: FromGenerator) => {
      if (m.type === 'prepared') {
        prepared = true;
        resolve({
          generator: 'worker',
          facts: { duration_s: m.duration_s, models: m.models, ...(m.recorded ? { recorded: m.recorded } : {}) },
          thread_id: m.thread_id,
          pid: m.pid,
          go: () => post({ type: 'go' }),
          stop: () => post({ type: 'stop' }),
          done,
        });
      } else if (m.type === 'progress') onProgress(m.progress);
      else if (m.type === 'done') {
        finished = true;
        settleDone!.resolve(m.result);
      } else if (m.type === 'failed') fail(new Error(m.error));
    });
    worker.on('error', (err) => fail(new Error(`the load generator thread failed: ${err.message}`)));
    worker.on('exit', (code) => fail(new Error(`the load generator thread exited (code ${code}) before its run ended`)));
    post({ type: 'start', job });
  });
}

/**
 * The same run on the server's own event loop, calling the scheduler directly (no HTTP): a demo of the
 * scheduler alone. Its sends compete with everything the server does, so its figures are labelled
 * 'inprocess' and it is never the default.
 */
export async function launchInProcessRun(job: GeneratorJob, target: InferTarget, onProgress: OnProgress): Promise<RunHandle> {
  const facts = await prepareJob(job, target);
  const abort = new AbortController();
  let go: () => void = () => undefined;
  const started = new Promise<void>((r) => (go = r));
  const done = started.then(() =>
    runLoad(target, facts.work(), { clock: new RealClock(), signal: abort.signal, speed: job.speed, model: job.model, version: job.version, limits: job.limits, progressEveryMs: job.progressEveryMs, onProgress }),
  );
  done.catch(() => undefined);
  return {
    generator: 'inprocess',
    facts: { duration_s: facts.duration_s, models: facts.models, ...(facts.recorded ? { recorded: facts.recorded } : {}) },
    thread_id: 0,
    pid: process.pid,
    go,
    stop: () => {
      abort.abort();
      go();
    },
    done,
  };
}
