/**
 * The scheduler of a model served by Triton's iterative sequences (`sequence_batching { iterative_sequence:
 * true }`, decoupled): core's scheduler seam over core's StepLoop and ContinuousPlanner (or, with
 * TensorRT-LLM's `gpt_model_type: V1`, the request-level baseline StaticBatchPlanner), whose executor is
 * the onnxruntime step executor on the model's one backend instance. The loop itself (step-engine.ts)
 * runs in that instance's worker thread, beside its session (step-host.ts, through hosted-engine.ts), as
 * TensorRT-LLM's batch manager runs in its executor's thread: a step follows the last without a hand-off
 * to this thread, which takes requests and writes tokens meanwhile. Where the backend cannot host it
 * (no synchronous native session), the loop runs here and sends each step to the instance as a batch
 * (instance-step-model.ts).
 *
 * A request is one generation: its prompt and max_tokens (generate-io.ts) become a sequence of the step
 * loop; each token it samples is one response on the request's stream (`stream` true) or the whole text is
 * one response at the end (`stream` false, or HTTP `generate`); the final flag comes with the last token
 * (or alone when an end token stopped it), as Triton's decoupled responses do. The scheduler's own answer
 * (settle) comes when the sequence ends, exactly once: ok, or its error (refused, cancelled, failed).
 * A client that goes away cancels its sequence; the planner frees its slot and blocks at the next step.
 *
 * Memory: the KV cache is sized at start, after the instance reserved its own memory, from what the
 * memory budget (--memory-budget) leaves free on the instance's device, bounded by
 * kv_cache_free_gpu_mem_fraction and max_tokens_in_paged_kv_cache (core iterative/config-knobs.ts); the
 * pool is reserved in the ledger as the instance `kv_cache` for the model's life (engines preallocate it)
 * and released on unload. Without a budget the memory given to KV is max_num_sequences x max_seq_len
 * tokens (every slot its longest sequence), unless max_tokens_in_paged_kv_cache says otherwise.
 *
 * Live changes (setIterativeKnobs: max_num_sequences, max_num_tokens, enable_chunked_context,
 * batch_scheduler_policy, max_tokens_in_paged_kv_cache): the new parameters are read by the load's own
 * rules (iterativeSetupFor, the memory its KV entry holds counted as free), so a change is refused in the
 * load's words and the live model is the one its saved config would load. Applied at the next step
 * boundary by core's replanAtBoundary: in place when the KV cache keeps its size and policy, else a new
 * planner over a new KV store takes over every sequence (running ones recomputed) and the ledger's
 * kv_cache entry takes the new size.
 */
import { errors, InferError, type EventBus, type Executor, type InferPayload, type InferResult, type InstanceInfo } from '@inferscope/core';
import { deviceFor, groupsFromConfig, type Clock, type Scheduler, type SchedulerRequest, type SchedulerSettle, type SchedulerView } from '@inferscope/core/scheduler';
import { ITERATIVE_REFUSALS, iterativeSetupFromConfig, unbudgetedKvBytes, type GenOutcome, type IterativeChange, type IterEvent, type IterativeSetup } from '@inferscope/core/iterative';
import type { KvUsage } from '@inferscope/core/kv-cache';
import type { ModelConfig } from '@inferscope/core/config';
import type { MemoryLedger, MemoryReservation } from '../memory/ledger';
import type { StreamingPayload } from '../infer/response-stream';
import { instanceStepModel } from './instance-step-model';
import { StepEngine, type EngineSetup, type GenerationEngine } from './step-engine';
import { HostedEngine } from './hosted-engine';
import { readGenerateAsk } from './generate-io';
import { GenerationSink } from './generation-sink';
import type { GenerativeModel } from './generative-model';
import { StepEvents } from './step-events';

export interface IterativeSchedulerOptions {
  model: string;
  version: string;
  idPrefix: string;
  /** the user's config (its parameters carry the knobs) */
  config: ModelConfig;
  generative: GenerativeModel;
  clock: Clock;
  bus: EventBus;
  executor: Executor<InferPayload, InferResult>;
  memory: MemoryLedger;
}

/** The knobs as the config gives them, or an Error naming every bad key (checked when the scheduler is made, so the load fails with it). */
export function iterativeSetupFor(o: Pick<IterativeSchedulerOptions, 'config' | 'generative'>, kvBudgetBytes: number): IterativeSetup {
  const got = iterativeSetupFromConfig(stepConfigOf(o), { kvBudgetBytes, maxSequenceTokens: o.generative.maxSeqLen });
  if ('problems' in got) throw new Error(got.problems.join('; '));
  return got.setup;
}

/** The file's step signature (the KV cache's shape) with the user's parameters (the knobs). */
function stepConfigOf(o: Pick<IterativeSchedulerOptions, 'config' | 'generative'>): ModelConfig {
  return { ...o.generative.instanceConfig, name: o.config.name, max_batch_size: o.config.max_batch_size, parameters: o.config.parameters };
}

export class IterativeScheduler implements Scheduler<InferPayload, InferResult> {
  private readonly instance: InstanceInfo;
  private loop: GenerationEngine | null = null;
  private kv: MemoryReservation | null = null;
  /** the live config: the loaded one with the live changes applied (its parameters are the knobs) */
  private config: ModelConfig;
  private batching: IterativeSetup['batching'] = 'continuous';
  private readonly events: StepEvents;
  private seq = 0;
  private stopping = false;
  private open = 0;
  private drained: (() => void) | null = null;

  constructor(private readonly o: IterativeSchedulerOptions) {
    this.config = o.config;
    iterativeSetupFor(o, Number.MAX_SAFE_INTEGER); // the knobs' refusals, before anything starts
    const group = groupsFromConfig(o.model, o.config.instance_group)[0]!;
    this.instance = { name: `${group.name}_0`, group: group.name, kind: group.kind, device: deviceFor(group, 0), index: 0 };
    this.events = new StepEvents(o.bus, o.model, o.version, this.instance.name, o.idPrefix);
  }

  async start(): Promise<void> {
    const { o, instance } = this;
    const t = o.clock.now();
    o.bus.emit({ type: 'instance.state', t, model: o.model, version: o.version, instance: instance.name, kind: instance.kind, device: instance.device, state: 'loading' });
    await o.executor.startInstance?.(instance);
    const setup = iterativeSetupFor(o, this.kvBudgetBytes(o.config));
    this.kv = o.memory.reserve({ device: instance.device, model: o.model, version: o.version, instance: 'kv_cache' }, setup.plan.totalBlocks * setup.plan.bytesPerBlock);
    this.batching = setup.batching;
    this.loop = await this.engine({ batching: setup.batching, knobs: setup.knobs, shape: setup.plan.shape, vocab: o.generative.vocab });
    o.bus.emit({ type: 'instance.state', t: o.clock.now(), model: o.model, version: o.version, instance: instance.name, kind: instance.kind, device: instance.device, state: 'idle' });
  }

  /**
   * The step loop, in the instance's own thread where its backend can host it (the onnxruntime worker:
   * each step follows the last without a hand-off), else here, each step sent to the instance as a batch.
   */
  private async engine(setup: EngineSetup): Promise<GenerationEngine> {
    const { o, instance } = this;
    const listener = (e: IterEvent) => this.events.fold(e);
    const host = o.executor.hostProgram?.bind(o.executor);
    if (host) {
      try {
        return await HostedEngine.start(host, instance, setup, o.clock, listener);
      } catch {
        // the instance's thread cannot host it (no synchronous native session): the steps go to it one by one
      }
    }
    return new StepEngine(setup, instanceStepModel(o.executor, instance, o.idPrefix), o.clock, listener);
  }

  /**
   * What the budget leaves free on the instance's device (the KV entry this model holds counts as free: a
   * live change replaces it), or (no budget) every slot of `config` its longest sequence.
   */
  private kvBudgetBytes(config: ModelConfig): number {
    const { memory, generative } = this.o;
    const budget = memory.budget(this.instance.device);
    if (budget > 0) return Math.max(0, budget - memory.used(this.instance.device) + (this.kv?.bytes ?? 0));
    return unbudgetedKvBytes(stepConfigOf({ config, generative }), generative.maxSeqLen);
  }

  enqueue(req: SchedulerRequest<InferPayload>): Promise<InferResult> {
    return new Promise((resolve, reject) => this.submit(req, (err, r) => (err ? reject(err) : resolve(r!))));
  }

  submit(req: SchedulerRequest<InferPayload>, settle: SchedulerSettle<InferResult>): string {
    const id = req.id ?? `${this.o.idPrefix}${++this.seq}`;
    const loop = this.loop;
    if (this.stopping || !loop) {
      settle(errors.MODEL_UNAVAILABLE(`model '${this.o.model}' version ${this.o.version}`, 'is not accepting requests'));
      return id;
    }
    const stream = (req.payload as StreamingPayload).stream;
    let ask;
    try {
      ask = readGenerateAsk(req.payload, this.o.model, this.o.generative.maxSeqLen);
    } catch (e) {
      settle(e as Error);
      return id;
    }
    const perToken = ask.stream ?? !stream?.single;
    this.open++;
    const sink = new GenerationSink(id, ask.maxTokens, perToken, stream, this.events, this.o.clock, settle, () => {
      this.open--;
      this.events.ended(id);
      if (this.open === 0) this.drained?.();
    });
    if (stream) stream.cancel = () => void loop.cancel(id);
    loop.submit({ id, prompt: ask.prompt, maxTokens: ask.maxTokens, ...(this.o.generative.endToken !== undefined ? { endToken: this.o.generative.endToken } : {}) }, sink);
    return id;
  }

  cancel(id: string): boolean {
    return this.loop?.cancel(id) ?? false;
  }

  applyLiveChange(): never {
    throw new Error(`model '${this.o.model}' is an iterative model: its live knobs are its config's parameters (max_num_sequences, max_num_tokens, enable_chunked_context, batch_scheduler_policy, max_tokens_in_paged_kv_cache), changed with setIterativeKnobs`);
  }

  /**
   * A live change of the knobs (core's planIterativeChange made `next`: the config and the change list),
   * applied at the next step boundary. Refused (INVALID_ARG, nothing changed) in the load's words when the
   * new parameters could not load (a KV budget under one sequence, or under what the memory budget
   * leaves), or when a sequence already accepted could never be served under them.
   */
  async applyIterativeChange(next: IterativeChange, by: string): Promise<void> {
    const loop = this.loop;
    if (this.stopping || !loop) throw errors.MODEL_UNAVAILABLE(`model '${this.o.model}' version ${this.o.version}`, 'is not accepting requests');
    if (next.changes.length === 0) return;
    let setup: IterativeSetup;
    try {
      setup = iterativeSetupFor({ config: next.config, generative: this.o.generative }, this.kvBudgetBytes(next.config));
    } catch (e) {
      throw errors.INVALID((e as Error).message);
    }
    try {
      await loop.replan(setup.knobs);
    } catch (e) {
      throw errors.INVALID((e as Error).message);
    }
    // accepted: the ledger's kv_cache entry takes the new size (it fits: the plan was sized from what is free)
    this.kv?.update(setup.knobs.totalBlocks * setup.plan.bytesPerBlock, 'modelled');
    this.config = next.config;
    this.o.bus.emit({ type: 'config.changed', t: this.o.clock.now(), model: this.o.model, version: this.o.version, changes: next.changes, by });
  }

  setInstanceCount(): never {
    throw new Error(ITERATIVE_REFUSALS.instanceCount(this.o.model));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.open > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.loop?.close();
    const { o, instance } = this;
    try {
      await o.executor.stopInstance?.(instance);
    } finally {
      this.kv?.release();
      this.kv = null;
      o.bus.emit({ type: 'instance.state', t: o.clock.now(), model: o.model, version: o.version, instance: instance.name, kind: instance.kind, device: instance.device, state: 'stopped' });
    }
  }

  /** Where the step loop runs: the instance's own thread (hosted by its backend) or this one. */
  get loopThread(): 'instance' | 'main' | undefined {
    return this.loop ? (this.loop instanceof HostedEngine ? 'instance' : 'main') : undefined;
  }

  /** KV block use now (for the metrics and the tests: every block is free once the sequences ended). */
  kvUsage(): KvUsage | undefined {
    return this.loop?.kvUsage();
  }

  snapshot(): SchedulerView {
    const view: SchedulerView = {
      instances: [{ name: this.instance.name, group: this.instance.group, kind: this.instance.kind, device: this.instance.device, state: this.loop?.idle === false ? 'busy' : 'idle' }],
    };
    // the block map is drawn from when read (the model list, the dashboard), not on every request's admission
    const loop = this.loop;
    if (loop) Object.defineProperty(view, 'kv_blocks', { get: () => loop.blockMap(), enumerable: true });
    return view;
  }
}
