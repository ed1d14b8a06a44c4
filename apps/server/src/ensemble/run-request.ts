/**
 * One ensemble request, run as a data-flow graph (Triton's EnsembleContext): a step starts as soon as
 * every ensemble tensor it reads is settled (given, absent optional input, or written by a finished
 * step), so independent steps run in parallel; each step is an ordinary inference request to its model,
 * checked by the same codec as an HTTP request and queued in THAT model's scheduler (batching per step).
 * The first failing step fails the ensemble with its message; steps already running finish and are
 * ignored; steps not started are never sent.
 */
import type { InferPayload, InferResult, SchedulerRequest, Tensor } from '@inferscope/core';
import { asInferError, SchedulerError } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { SequenceFields } from '@inferscope/core/scheduler';
import { capMessage } from '../infer/redact-paths';
import { encodeBinaryData } from '../infer/binary-data';
import { modelSpecFor } from '../infer/model-spec';
import type { ParsedRequest } from '../infer/parsed-request';
import { toSchedulerRequest, validateInferRequest } from '../infer/validate-request';
import type { CallChain, ChainedPayload } from '../infer/call-chain';
import { prunedFor, type EnsemblePlan, type StepPlan } from './plan';

/** What a running ensemble needs from the server: the composing models, through their own schedulers. */
export interface StepHost {
  /** the READY version a step addresses, or throws with Triton's message (unknown / not ready) */
  served(model: string, version?: string): { version: string; config: ModelConfig };
  infer(model: string, version: string, req: SchedulerRequest<InferPayload>): Promise<InferResult>;
}

export interface EnsembleRequest {
  /** the ensemble request's id (step request ids derive from it) */
  id: string;
  inputs: Tensor[];
  /** requested ensemble outputs; undefined = all, config order */
  outputs?: string[];
  priority?: number;
  timeoutUs?: number;
  /** the ensemble request's correlation id and flags: every step carries them, as in Triton */
  sequence?: SequenceFields;
  /** the BLS chain above an ensemble a model called: its steps carry it (depth bound, deadlock check) */
  callChain?: CallChain;
}

/** Told just before a step's request enters its model's scheduler. */
export interface StepListener {
  stepSent(step: StepPlan, version: string, stepRequestId: string): void;
}

export const stepRequestId = (ensembleRequestId: string, step: number): string => `${ensembleRequestId}#${step}`;

export function runEnsembleRequest(plan: EnsemblePlan, req: EnsembleRequest, host: StepHost, onStep: StepListener): Promise<InferResult> {
  return new Promise<InferResult>((resolve, reject) => new EnsembleRun(plan, req, host, onStep, resolve, reject).start());
}

/**
 * The state of one request's graph. A class rather than closures: it runs for every ensemble request, and
 * one object with methods costs less than a set of fresh functions each time.
 */
class EnsembleRun {
  private readonly wanted: readonly string[];
  private readonly steps: readonly number[];
  private readonly used: ReadonlySet<string>;
  private readonly tensors = new Map<string, Tensor>();
  private readonly settled: Set<string>;
  /** steps of `steps` not sent yet */
  private readonly waiting: boolean[];
  private waitingCount: number;
  private running = 0;
  private done = false;

  constructor(
    private readonly plan: EnsemblePlan,
    private readonly req: EnsembleRequest,
    private readonly host: StepHost,
    private readonly onStep: StepListener,
    private readonly resolve: (r: InferResult) => void,
    private readonly reject: (e: unknown) => void,
  ) {
    this.wanted = req.outputs ?? plan.outputs;
    const pruned = prunedFor(plan, this.wanted);
    this.steps = pruned.steps;
    this.used = pruned.used;
    for (const t of req.inputs) this.tensors.set(t.name, t);
    this.settled = new Set(plan.inputs);
    this.waiting = new Array<boolean>(plan.steps.length).fill(false);
    for (const i of this.steps) this.waiting[i] = true;
    this.waitingCount = this.steps.length;
  }

  start(): void {
    this.launchReady();
    this.finishIfDone();
  }

  /**
   * Every failure of a running ensemble names it first, as Triton's ensemble scheduler does ("in ensemble
   * 'm', " before a step's own message; nested ensembles name each level), with the step's code.
   */
  private fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    const e = asSchedulerError(err);
    this.reject(new SchedulerError(e.reason, capMessage(`in ensemble '${this.plan.name}', ${e.message}`), e.code, e.transportStatus));
  }

  private ready(step: StepPlan): boolean {
    for (const [, t] of step.inputs) if (!this.settled.has(t)) return false;
    return true;
  }

  private launchReady(): void {
    for (const i of this.steps) {
      if (this.done) return;
      const step = this.plan.steps[i]!;
      if (!this.waiting[i] || !this.ready(step)) continue;
      this.waiting[i] = false;
      this.waitingCount--;
      this.running++;
      let sent: Promise<InferResult>;
      try {
        sent = sendStep(step, this.req, this.tensors, this.used, this.host, this.onStep);
      } catch (err) {
        this.running--;
        return this.fail(err);
      }
      sent.then((result) => this.stepDone(step, result), (err) => {
        this.running--;
        this.fail(err);
      });
    }
  }

  private stepDone(step: StepPlan, result: InferResult): void {
    this.running--;
    if (this.done) return;
    for (const [output, tensor] of step.outputs) {
      const t = result.find((r) => r.name === output);
      if (t) this.tensors.set(tensor, { ...t, name: tensor });
      this.settled.add(tensor);
    }
    this.launchReady();
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (this.done || this.running > 0) return;
    const { plan } = this;
    if (this.waitingCount > 0) {
      // validation rules this out (every tensor is written before it is read); say so if it happens
      const stuck = this.steps.filter((i) => this.waiting[i]);
      return this.fail(new SchedulerError('failed', `steps ${stuck.join(', ')} can never run: their inputs are not written`, 'INTERNAL'));
    }
    const out: Tensor[] = [];
    for (const name of this.wanted) {
      const t = this.tensors.get(name);
      if (!t) return this.fail(new SchedulerError('failed', `output '${name}' was not produced by model '${plan.steps[plan.producer.get(name) ?? 0]?.model}'`, 'INTERNAL'));
      out.push(t);
    }
    this.done = true;
    this.resolve(out);
  }
}

/**
 * The step's request: the ensemble tensors it reads, renamed to its inputs and checked against its config
 * by the KServe codec (datatype, shape, batch size, shape key), exactly as if a client had sent them.
 * Decoding does not copy aligned bytes (infer/binary-data.ts): steps may share one tensor's buffer, read
 * only. No backend transfers or writes a request's buffers (onnxruntime's gather copies into its own
 * feeds: test/backends/ort-batch-io.test.ts), so one tensor can feed several steps.
 */
function sendStep(step: StepPlan, req: EnsembleRequest, tensors: Map<string, Tensor>, used: ReadonlySet<string>, host: StepHost, onStep: StepListener): Promise<InferResult> {
  const served = host.served(step.model, step.version);
  const spec = modelSpecFor(step.model, served.version, served.config);
  const parsed: ParsedRequest = {
    inputs: step.inputs.flatMap(([input, tensor]) => {
      const t = tensors.get(tensor);
      return t ? [{ name: input, datatype: t.datatype, shape: t.shape, binary: encodeBinaryData(t.datatype, t.data) }] : [];
    }),
    outputs: step.outputs.filter(([, t]) => used.has(t)).map(([name]) => ({ name })),
    binaryOutput: true,
  };
  const stepReq = toSchedulerRequest(validateInferRequest(parsed, spec));
  stepReq.id = stepRequestId(req.id, step.index);
  if (req.priority !== undefined) stepReq.priority = req.priority;
  if (req.timeoutUs !== undefined) stepReq.timeoutUs = req.timeoutUs;
  if (req.sequence !== undefined) stepReq.sequence = req.sequence;
  if (req.callChain !== undefined) (stepReq.payload as ChainedPayload).callChain = req.callChain;
  onStep.stepSent(step, served.version, stepReq.id);
  return host.infer(step.model, served.version, stepReq);
}

/** Any failure as the SchedulerError the ensemble answers with (the step's message and code). */
function asSchedulerError(err: unknown): SchedulerError {
  if (err instanceof SchedulerError) return err;
  const e = asInferError(err);
  const reason = e.code === 'UNAVAILABLE' ? 'unavailable' : e.code === 'INVALID_ARG' ? 'invalid' : 'failed';
  return new SchedulerError(reason, capMessage(e.message), e.code, e.transportStatus);
}
