/**
 * The limit: the model's own step loop, back-to-back in this process, on the SAME step batches the server
 * ran. The server's `iterative` events give each step's rows (sequence, kind, new tokens) and padded
 * slots; each sequence's cached count and block table are rebuilt here (a block drawn as its tokens need
 * one, all freed after its last step), the new tokens are a fixed byte (the content does not change the
 * work), and every step goes through the server's own step executor (OrtStepExecutor: buildKvStep, the
 * onnxruntime run, storeKvStep, pad rows computed) on an in-process session with the served config's
 * session options, called as the server's instance thread calls it (onnxruntime's native session, at
 * once, without the public API's event-loop turn per run). No scheduler, no worker thread, no HTTP: what
 * is left of the server's time is theirs.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import * as ort from 'onnxruntime-node';
import type { ModelConfig } from '@inferscope/core/config';
import { stepSampleOf, type IterEvent, type StepBatch, type StepRow, type StepSample } from '@inferscope/core/iterative';
import { KvBlockStore, type KvModelShape } from '@inferscope/core/kv-cache';
import { OrtStepExecutor, sessionStepModel, type StepModel } from '../../apps/server/src/generate/ort-step-executor';
import { NativeSession, loadNativeBinding, runPlainTensors } from '../../apps/server/src/backends/onnxruntime/native-session.mjs';
import { sessionOptions } from '../../apps/server/src/backends/onnxruntime/session-options';

type StepStarted = Extract<IterEvent, { type: 'step_started' }>;
type StepFinished = Extract<IterEvent, { type: 'step_finished' }>;

/** One step as the server ran it, with how long its executor took there. */
export interface RecordedStep {
  started: StepStarted;
  /** the executor's time for it on the server (step_finished) */
  servedUs: number;
  /**
   * the server's whole step: from its start to the next step's start when the loop went straight on (the
   * executor's time plus the server's work between steps: tokens streamed, events, the next plan); the
   * executor's time when the loop went idle after it
   */
  cycleUs: number;
  /** sequences preempted as this step was formed: their caches were dropped (recomputed later) */
  preempted: string[];
}

/** Pairs each step_started with its step_finished (a step that failed has none and is left out). */
export function recordedSteps(events: readonly IterEvent[]): RecordedStep[] {
  const finished = new Map<number, StepFinished>();
  const preempted = new Map<number, string[]>();
  /** step -> the next step's start, when no idle came between them */
  const nextStart = new Map<number, number>();
  let last: StepStarted | undefined;
  for (const e of events) {
    if (e.type === 'step_finished') finished.set(e.step, e);
    if (e.type === 'seq_preempted') preempted.set(e.step, [...(preempted.get(e.step) ?? []), e.id]);
    if (e.type === 'idle') last = undefined;
    if (e.type === 'step_started') {
      if (last) nextStart.set(last.step, e.t);
      last = e;
    }
  }
  return events.filter((e): e is StepStarted => e.type === 'step_started' && finished.has(e.step)).map((started) => {
    const servedUs = finished.get(started.step)!.durationUs;
    const next = nextStart.get(started.step);
    return { started, servedUs, cycleUs: next === undefined ? servedUs : next - started.t, preempted: preempted.get(started.step) ?? [] };
  });
}

/** The step batches the executor is handed, rebuilt from the recorded rows. */
export function rebuildBatches(steps: readonly RecordedStep[], blockTokens: number): { batches: StepBatch[]; totalBlocks: number } {
  const lastStep = new Map<string, number>();
  steps.forEach((s, i) => s.started.rows.forEach((r) => lastStep.set(r.id, i)));
  const seqs = new Map<string, { cached: number; table: number[] }>();
  const free: number[] = [];
  let made = 0;
  const drop = (id: string) => {
    free.push(...(seqs.get(id)?.table ?? []));
    seqs.delete(id);
  };
  const batches = steps.map((s, i) => {
    s.preempted.forEach(drop);
    const rows: StepRow[] = s.started.rows.map((r) => {
      let q = seqs.get(r.id);
      if (!q) seqs.set(r.id, (q = { cached: 0, table: [] }));
      while (q.table.length * blockTokens < q.cached + r.tokens) q.table.push(free.pop() ?? made++);
      const row: StepRow = { id: r.id, kind: r.kind, samples: true, table: [...q.table], cached: q.cached, tokens: new Array<number>(r.tokens).fill(97) };
      q.cached += r.tokens;
      return row;
    });
    for (const r of s.started.rows) if (lastStep.get(r.id) === i) drop(r.id);
    return { step: s.started.step, rows, tokens: s.started.tokens, padSlots: s.started.padSlots };
  });
  return { batches, totalBlocks: Math.max(1, made) };
}

const WARM_STEPS = 32;

export interface ReplayResult {
  /** wall time of the whole back-to-back loop */
  wallUs: number;
  /** each step's time in the loop, as the cost fit takes it */
  samples: StepSample[];
}

/** Runs the batches back-to-back on the model file, one after another, timed. */
export async function replay(batches: readonly StepBatch[], totalBlocks: number, o: { modelFile: string; config: ModelConfig; shape: KvModelShape; blockTokens: number; vocab: number }): Promise<ReplayResult> {
  const file = readFileSync(o.modelFile);
  const options = sessionOptions(o.config, cpus().length);
  const binding = loadNativeBinding();
  // the native session where the server's worker has it (its fast path); else the public API, as the server falls back
  const native = binding ? new NativeSession(binding, file, options) : null;
  const session = native ? null : await ort.InferenceSession.create(file, options as ort.InferenceSession.SessionOptions);
  const model: StepModel = native ? { run: (inputs) => runPlainTensors(native, ort.Tensor, inputs) } : sessionStepModel(session!, ort.Tensor);
  try {
    const executor = new OrtStepExecutor(new KvBlockStore(o.shape, o.blockTokens, totalBlocks), model, o.vocab);
    const run = (batch: StepBatch) => new Promise<void>((resolve, reject) => executor.runStep(batch, (e) => (e ? reject(e as Error) : resolve())));
    // untimed first: the server's session was warmed by the bench's warm-up requests, this one is fresh
    // (the blocks they write are rewritten before the timed run reads them)
    for (const batch of batches.slice(0, WARM_STEPS)) await run(batch);
    const samples: StepSample[] = [];
    const start = performance.now();
    for (const batch of batches) {
      const t0 = performance.now();
      await run(batch);
      samples.push(stepSampleOf(batch, (performance.now() - t0) * 1000));
    }
    return { wallUs: (performance.now() - start) * 1000, samples };
  } finally {
    native?.release();
    await session?.release();
  }
}
