/**
 * The real seams of the ModelManager: core's config engine, the backend registry (onnxruntime ...),
 * core's ModelScheduler on the real clock, and the memory ledger's budget pre-check.
 */
import { RealClock, ModelScheduler, SequenceScheduler, schedulerKindFor, type SchedulerConfigInput } from '@inferscope/core/scheduler';
import {
  parseModelConfigWithLocations,
  normalizeModelConfig,
  configProblems,
  printModelConfig,
  locate,
  type ModelConfig,
  type SourceLocations,
} from '@inferscope/core/config';
import type { InferPayload, InferResult } from '@inferscope/core';
import { getBackend, autoCompleteConfig } from '../backends/index';
import { sequenceExecutor, withSequenceTensors } from '../backends/sequence-inputs';
import type { MemoryLedger } from '../memory/ledger';
import type { ServerCalls } from '../backends/stub/server-calls';
import type { TorchStubChoice } from '../backends/pytorch/native-stub';
import type { ModelRuntime, ConfigProblem } from './runtime';
import { fineWait } from '../timing/fine-wait';
import type { RateLimiter } from '@inferscope/core/rate-limiter';
import { IterativeScheduler } from '../generate/iterative-scheduler';

export interface RuntimeOptions {
  memory: MemoryLedger;
  log?: (msg: string) => void;
  python?: string;
  torchStub?: TorchStubChoice;
  calls?: ServerCalls;
  maxStubFrameBytes?: number;
  /** the server's rate limiter (--rate-limit), shared by every model's scheduler */
  rateLimiter?: RateLimiter;
  /** whether the server has a response cache (--cache-config): a model that enables one is told when not */
  responseCache?: boolean;
}

export function defaultRuntime(opts: RuntimeOptions): ModelRuntime {
  // Source positions of each parsed config, so a validation issue found after normalisation still points
  // at the line of config.pbtxt it is about.
  const positions = new WeakMap<ModelConfig, SourceLocations>();
  const clock = new RealClock(fineWait);
  // Loads per model version over this runtime's (the server's) lifetime. A reloaded model gets a fresh
  // ModelScheduler, whose counters restart; the load number in the id prefix keeps every request and batch
  // id unique, because the dashboard and the recorder key on them. The first load keeps the plain prefix.
  const loads = new Map<string, number>();
  return {
    config: {
      parse(text) {
        const parsed = parseModelConfigWithLocations(text);
        positions.set(parsed.config, parsed.locations);
        return parsed.config;
      },
      normalize: (config, o) => normalizeModelConfig(config, o),
      // Triton's rules first (its first issue is the one Triton reports), then what InferScope does not serve.
      validate: (config, o): ConfigProblem[] => configProblems(config, o),
      locate(problem, raw) {
        const at = positions.get(raw);
        const path = (problem as { path?: string }).path;
        if (!at || !path) return problem;
        const located = locate({ message: problem.message, path }, at);
        return { ...problem, line: located.line, column: located.column };
      },
      print: (config) => printModelConfig(config),
    },
    backends: {
      async autoComplete(modelFile, config) {
        // Only backends that can read their model's signature complete configs; others keep theirs.
        const backend = getBackend(config);
        // an iterative model's config is its clients' signature, not its file's (generate/generative-model.ts)
        if (schedulerKindFor(config) === 'iterative') return config;
        if (backend.autoComplete) return backend.autoComplete(modelFile, config, { python: opts.python });
        if (backend.name !== 'onnxruntime') return config;
        const { config: completed, filled } = autoCompleteConfig(modelFile, config);
        if (filled.length > 0) opts.log?.(`auto-complete ${modelFile}: ${filled.join('; ')}`);
        return completed;
      },
      async load(ctx) {
        // a stateful model's backend is also fed its control and state tensors (backends/sequence-inputs.ts)
        const config = withSequenceTensors(ctx.config);
        return getBackend(config).load({ ...ctx, config, memory: opts.memory, python: opts.python, torchStub: opts.torchStub, calls: opts.calls, maxStubFrameBytes: opts.maxStubFrameBytes });
      },
    },
    createScheduler({ model, version, config, bus, executor, generative }) {
      // the plug-in point for each scheduler kind of core's seam (an ensemble's is made by models/ensembles.ts)
      const kind = schedulerKindFor(config);
      if (kind === 'ensemble') throw new Error(`model '${model}' needs the ${kind} scheduler, which this runtime does not build`);
      // Triton says nothing when a model enables the cache and the server has none; a user should know
      if ((config as ModelConfig).response_cache?.enable && !opts.responseCache) {
        opts.log?.(`${model}:${version} enables response_cache but the server has no response cache (start it with --cache-config local,size=<bytes>): every request runs`);
      }
      const key = `${model}\0${version}`;
      const load = (loads.get(key) ?? 0) + 1;
      loads.set(key, load);
      const idPrefix = load === 1 ? `${model}:${version}:` : `${model}:${version}~${load}:`;
      const common = { model, version, idPrefix, config: config as SchedulerConfigInput, clock, bus };
      if (kind === 'iterative') {
        if (!generative) throw new Error(`model '${model}': an iterative model is loaded with its step signature (models/version-loader.ts)`);
        // its steps do not ask the rate limiter: refused where it limits, never run unlimited
        if (opts.rateLimiter && opts.rateLimiter.mode !== 'off' && declaresRateLimiter(config)) {
          throw new Error(`model '${model}': the rate limiter does not gate iterative models yet; remove instance_group rate_limiter or serve without --rate-limit execution_count`);
        }
        return new IterativeScheduler({ model, version, idPrefix, config, generative, clock, bus, executor, memory: opts.memory });
      }
      if (kind === 'sequence') {
        // the rate limiter gates the dynamic batcher's batches; the sequence batcher's lanes do not ask it yet,
        // so a sequence model that declares rate_limiter needs on a limiting server is refused, never run unlimited
        if (opts.rateLimiter && opts.rateLimiter.mode !== 'off' && declaresRateLimiter(config as ModelConfig)) {
          throw new Error(`model '${model}': the rate limiter does not gate sequence-batched models yet; remove instance_group rate_limiter or serve without --rate-limit execution_count`);
        }
        // the implicit state of live sequences, counted where the instances' memory is (exact bytes)
        const stateMemory = opts.memory.reserve({ device: 'cpu', model, version, instance: 'sequence_state' }, 0, 'measured');
        try {
          return new SequenceScheduler<InferPayload, InferResult>({
            ...common, executor: sequenceExecutor(executor, config), stateMemory: { update: (b) => stateMemory.update(b, 'measured'), release: () => stateMemory.release() },
          });
        } catch (err) {
          stateMemory.release(); // a state the batcher cannot carry (e.g. TYPE_STRING): the load fails with the reason
          throw err;
        }
      }
      return new ModelScheduler<InferPayload, InferResult>({ ...common, executor, rateLimiter: opts.rateLimiter });
    },
    memory: opts.memory,
  };
}

/** an instance group that asks the rate limiter for resources or a priority */
function declaresRateLimiter(config: ModelConfig): boolean {
  return (config.instance_group ?? []).some((g) => (g.rate_limiter?.resources?.length ?? 0) > 0 || (g.rate_limiter?.priority ?? 0) > 0);
}
