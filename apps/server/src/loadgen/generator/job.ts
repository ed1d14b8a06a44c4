/**
 * A load run as data: what to send (a scenario plan or a trace file), where, how fast, within which
 * limits. The same job runs in the generator thread (the default: its own event loop, a client over
 * loopback HTTP) or on the server's loop (in-process mode); `prepareJob` is the one place that turns a
 * job into work, for both.
 */
import type { RecordedRun } from '@inferscope/core';
import { checkPlanSize, planArrivals, type LoadLimits, type Scenario, type ScenarioOverrides } from '@inferscope/core/load';
import { planWork, type LoadWork, type RunProgress, type RunResult } from '../runner';
import type { InferTarget } from '../targets';
import { scanTraceFile, streamTraceFile } from '../trace-file';

export type LoadSourceSpec =
  | { kind: 'scenario'; scenario: Scenario; overrides: ScenarioOverrides }
  /** `path` already checked by the controller (a name inside the recordings folder) */
  | { kind: 'trace'; path: string; label: string; model?: string };

export interface GeneratorJob {
  /** the server's own address as a client reaches it (loopback) */
  url: string;
  /** Triton's binary tensor extension (default: true, what a fast client sends) */
  binary: boolean;
  /** seed of the input tensors */
  seed?: number;
  /** target model for arrivals without one, and its version */
  model?: string;
  version?: string;
  speed?: number;
  source: LoadSourceSpec;
  limits: LoadLimits;
  progressEveryMs: number;
}

/** What a job is about to do, known before its first request. */
export interface PreparedFacts {
  duration_s: number;
  models: string[];
  /** a replayed recording's summary line: what the recorded run measured */
  recorded?: RecordedRun;
}

/** main -> generator thread */
export type ToGenerator = { type: 'start'; job: GeneratorJob } | { type: 'go' } | { type: 'stop' };

/** generator thread -> main */
export type FromGenerator =
  /** planned and checked, waiting for 'go' (so a recording is listening before the first request) */
  | ({ type: 'prepared'; thread_id: number; pid: number } & PreparedFacts)
  | { type: 'progress'; progress: RunProgress }
  | { type: 'done'; result: RunResult }
  /** `prepared` false: refused before anything was sent (the control message's ack carries the reason) */
  | { type: 'failed'; error: string; prepared: boolean };

/** Plans the job, refuses what the limits forbid, checks every model the traffic goes to. */
export async function prepareJob(job: GeneratorJob, target: InferTarget): Promise<PreparedFacts & { work: () => LoadWork }> {
  const speed = job.speed ?? 1;
  if (job.source.kind === 'scenario') {
    const { scenario, overrides } = job.source;
    const plan = planArrivals(scenario, overrides);
    checkPlanSize(plan.size, job.limits);
    const models = [...new Set([job.model ?? '', ...(scenario.models ?? []).map((m) => m.value)])].filter((m) => m !== '');
    // Refuse up front: a run whose every request fails teaches nothing and floods the logs.
    for (const m of models) await target.check(m, m === job.model ? job.version : undefined);
    return { duration_s: plan.duration_us / 1e6 / speed, models, work: () => planWork(plan) };
  }
  const { path, label, model } = job.source;
  const facts = await scanTraceFile(path, { model });
  if (facts.arrivals === 0) throw new Error(`trace ${label} has no arrivals`);
  if (facts.arrivals > job.limits.max_requests_per_run) throw new Error(`trace ${label} has ${facts.arrivals} arrivals, more than the ${job.limits.max_requests_per_run} one load run may send`);
  for (const m of facts.models) {
    if (!m) throw new Error(`trace ${label} has arrivals without a model: give 'model' to replay them onto one`);
    await target.check(m);
  }
  const recorded = facts.summary as RecordedRun | undefined; // written by recorder.ts from a run's own figures
  return { duration_s: facts.last_t_us / 1e6 / speed, models: facts.models, ...(recorded ? { recorded } : {}), work: () => ({ open: streamTraceFile(path, { model }) }) };
}

export type { RunProgress, RunResult };
