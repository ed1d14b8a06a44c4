/**
 * One ensemble request, run as a data-flow graph (Triton's EnsembleContext): a step starts as soon as
 * every ensemble tensor it reads is settled (given, absent optional input, or written by a finished
 * step), so independent steps run in parallel; each step is an ordinary inference request to its model,
 * checked by the same codec as an HTTP request and queued in THAT model's scheduler (batching per step).
 * The first failing step fails the ensemble with its message; steps already running finish and are
 * ignored; steps not started are never sent.
 */
import type { InferPayload, InferResult, SchedulerRequest, Tensor } from '@inferscope/core';
import { SchedulerError } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import { describeError } from '../kserve/errors';
import { encodeBinaryData } from '../kserve/binary-data';
import { modelSpecFor } from '../kserve/model-spec';
import type { ParsedRequest } from '../kserve/parse-request';
import { toSchedulerRequest, validateInferRequest } from '../kserve/validate-request';
import { neededSteps, type EnsemblePlan, type StepPlan } from './plan';

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
}

/** Called just before a step's request enters its model's scheduler. */
export type StepListener = (step: StepPlan, version: string, stepRequestId: string) => void;

export const stepRequestId = (ensembleRequestId: string, step: number): string => `${ensembleRequestId}#${step}`;

export function runEnsembleRequest(plan: EnsemblePlan, req: EnsembleRequest, host: StepHost, onStep: StepListener): Promise<InferResult> {
  const wanted = req.outputs ?? plan.outputs;
  const steps = neededSteps(plan, wanted);
  // Tensors some needed step reads or the client wants: a step is asked only for outputs that matter.
  const used = new Set<string>(wanted);
  for (const i of steps) for (const [, t] of plan.steps[i]!.inputs) used.add(t);
  const tensors = new Map<string, Tensor>();
  for (const t of req.inputs) tensors.set(t.name, t);
  const settled = new Set<string>(plan.inputs);

  return new Promise<InferResult>((resolve, reject) => {
    const waiting = new Set(steps);
    let running = 0;
    let done = false;
    const fail = (err: unknown) => {
      if (done) return;
      done = true;
      reject(err);
    };
    const finishIfDone = () => {
      if (done || running > 0) return;
      if (waiting.size > 0) {
        // validation rules this out (every tensor is written before it is read); say so if it happens
        return fail(new SchedulerError('failed', `in ensemble '${plan.name}', steps ${[...waiting].join(', ')} can never run: their inputs are not written`, 500));
      }
      const out: Tensor[] = [];
      for (const name of wanted) {
        const t = tensors.get(name);
        if (!t) return fail(new SchedulerError('failed', `in ensemble '${plan.name}', output '${name}' was not produced by model '${plan.steps[plan.producer.get(name) ?? 0]?.model}'`, 500));
        out.push(t);
      }
      done = true;
      resolve(out);
    };
    const launchReady = () => {
      for (const i of [...waiting]) {
        const step = plan.steps[i]!;
        if (!step.inputs.every(([, t]) => settled.has(t))) continue;
        waiting.delete(i);
        running++;
        let sent: Promise<InferResult>;
        try {
          sent = sendStep(step, req, tensors, used, host, onStep);
        } catch (err) {
          running--;
          return fail(asSchedulerError(err));
        }
        sent.then(
          (result) => {
            running--;
            if (done) return;
            const byName = new Map(result.map((t) => [t.name, t]));
            for (const [output, tensor] of step.outputs) {
              const t = byName.get(output);
              if (t) tensors.set(tensor, { ...t, name: tensor });
              settled.add(tensor);
            }
            launchReady();
            finishIfDone();
          },
          (err) => {
            running--;
            fail(asSchedulerError(err));
          },
        );
      }
    };
    launchReady();
    finishIfDone();
  });
}

/**
 * The step's request: the ensemble tensors it reads, renamed to its inputs and checked against its config
 * by the KServe codec (datatype, shape, batch size, shape key), exactly as if a client had sent them.
 * Decoding copies the bytes: each step owns its buffers (backends may transfer them to a worker thread,
 * and one tensor can feed several steps).
 */
function sendStep(step: StepPlan, req: EnsembleRequest, tensors: Map<string, Tensor>, used: Set<string>, host: StepHost, onStep: StepListener): Promise<InferResult> {
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
  onStep(step, served.version, stepReq.id);
  return host.infer(step.model, served.version, stepReq);
}

/** Any failure as the SchedulerError the ensemble answers with (the step's message and status). */
function asSchedulerError(err: unknown): SchedulerError {
  if (err instanceof SchedulerError) return err;
  const { status, message } = describeError(err);
  return new SchedulerError(status === 503 ? 'unavailable' : status >= 500 ? 'failed' : 'invalid', message, status);
}
