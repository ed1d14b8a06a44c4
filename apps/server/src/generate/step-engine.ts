/**
 * A generative model's step loop with everything it owns: core's StepLoop and planner, the paged KV
 * store, and the onnxruntime step executor over it. One class, used wherever the loop runs: in the
 * instance's worker thread beside its session (step-host.ts, the server's way) or on the main thread over
 * the backend's executor (instance-step-model.ts, where the backend cannot host it).
 *
 * Also the contract the iterative scheduler holds an engine by (`GenerationEngine`), whichever thread
 * its loop runs in, and the plain data an engine is started with (`EngineSetup`, what crosses to a worker).
 */
import type { Clock } from '@inferscope/core/scheduler';
import { StepLoop, newPlanner, replanAtBoundary, type GenBatching, type GenRequest, type GenSink, type IterEvent, type IterativeKnobs, type StepExecutor } from '@inferscope/core/iterative';
import { KvBlockStore, type KvBlockMap, type KvModelShape, type KvUsage } from '@inferscope/core/kv-cache';
import { OrtStepExecutor, type StepModel } from './ort-step-executor';

/** What a step loop is started with: plain data, so it can be posted to the instance's thread. */
export interface EngineSetup {
  batching: GenBatching;
  knobs: IterativeKnobs;
  /** the KV cache's shape (the model file's) */
  shape: KvModelShape;
  vocab: number;
}

/** A step loop as the iterative scheduler holds it, in this thread or another. */
export interface GenerationEngine {
  /** the request's tokens and its one outcome go to `sink` */
  submit(request: GenRequest, sink: GenSink): void;
  /** the client went away: answered now (cancelled); false when the sequence is not live */
  cancel(id: string): boolean;
  /** new knobs at the next step boundary (core's replanAtBoundary); rejects, changing nothing, when refused */
  replan(knobs: IterativeKnobs): Promise<void>;
  kvUsage(): KvUsage;
  blockMap(): KvBlockMap;
  /** no step in flight and nothing waiting */
  readonly idle: boolean;
  /** the engine will get no more requests (every one it had has ended) */
  close(): void;
}

export class StepEngine implements GenerationEngine {
  readonly loop: StepLoop;

  constructor(
    private readonly setup: EngineSetup,
    private readonly model: StepModel,
    clock: Clock,
    listener: (e: IterEvent) => void,
    /** wraps the executor (the instance's thread defers each step to its own task queue) */
    private readonly wrap: (executor: StepExecutor) => StepExecutor = (e) => e,
  ) {
    this.loop = new StepLoop({ clock, planner: newPlanner(setup.batching, setup.knobs), executor: this.executorFor(setup.knobs), listener });
  }

  /** The executor over a KV store of `knobs`' blocks (a new one when a live change resizes the cache). */
  private executorFor(knobs: IterativeKnobs): StepExecutor {
    return this.wrap(new OrtStepExecutor(new KvBlockStore(this.setup.shape, knobs.blockTokens, knobs.totalBlocks), this.model, this.setup.vocab));
  }

  submit(request: GenRequest, sink: GenSink): void {
    this.loop.submit(request, sink);
  }

  cancel(id: string): boolean {
    return this.loop.cancel(id);
  }

  async replan(knobs: IterativeKnobs): Promise<void> {
    await replanAtBoundary(this.loop, this.setup.batching, knobs, (k) => this.executorFor(k));
  }

  kvUsage(): KvUsage {
    return this.loop.current.kvUsage();
  }

  blockMap(): KvBlockMap {
    return this.loop.current.blockMap();
  }

  get idle(): boolean {
    return this.loop.idle;
  }

  close(): void {}
}
