/**
 * The six guided lessons (following the seed's chapters). Each sets up the view, the simulated scenario
 * and the settings, says what to watch, and lists the formula cards that go with it. Text lives here
 * (not in strings.ts) because a lesson is content, translated as a whole.
 */
import type { ViewName } from '../url-state';
import type { SimScenario } from './sim-types';
import { cnn, mlp, mlpTensorRT, MiB } from './models';

export type FormulaId = 'repoSize' | 'maxBatchBound' | 'batchThroughput' | 'speedup' | 'memoryTotal' | 'qps';

export interface Lesson {
  id: string;
  chapter: number;
  title: string;
  view: ViewName;
  /** simulated µs per wall-clock ms (1000 = real time) */
  speed: number;
  scenario: (seed: number) => SimScenario;
  /** open this model's config drawer */
  inspect?: string;
  intro: string[];
  watch: string[];
  formulas: FormulaId[];
}

const SECOND = 1_000_000;

/** Playback speeds offered (simulated µs per wall ms); every lesson starts at one of them. */
export const SPEEDS: [number, string][] = [[1, '1/1000×'], [10, '1/100×'], [100, '1/10×'], [1000, '1× real time']];

export const LESSONS: Lesson[] = [
  {
    id: 'repository', chapter: 1, title: 'The model repository', view: 'architecture', speed: 100,
    scenario: (seed) => ({ models: [mlp(), cnn()], traffic: { rate: 40, durationUs: 60 * SECOND }, budgetBytes: 1024 * MiB, seed }),
    intro: [
      'A Triton server serves models from a repository: one folder per model, holding config.pbtxt and one numbered folder per version with the model file (model.onnx, model.plan, …).',
      'The version policy decides which versions load (by default only the latest). Each loaded version gets its own scheduler and instances.',
    ],
    watch: ['Each model card: its versions, backend and state.', 'Click a model to see its files and the config Triton reads.', 'The repository size is the sum of the model files.'],
    formulas: ['repoSize'],
  },
  {
    id: 'config', chapter: 2, title: 'The model config (and its common mistakes)', view: 'architecture', speed: 100, inspect: 'mlp_classifier:1',
    scenario: (seed) => ({ models: [mlp()], traffic: { rate: 40, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    intro: [
      'config.pbtxt tells Triton the model\'s inputs, outputs, batching and instances, in protobuf text format.',
      'Common mistakes: writing the batch dimension into dims (with max_batch_size > 0 Triton prepends it: dims: [784], not [1, 784]); a preferred_batch_size larger than max_batch_size; a name that differs from the folder; a platform and backend that do not match; max_batch_size above what the backend or the model file supports.',
    ],
    watch: ['The config drawer: the printed pbtxt and the validation messages.', 'max_batch_size is bounded by the backend (a TensorRT plan by its optimisation profile).'],
    formulas: ['maxBatchBound'],
  },
  {
    id: 'batching', chapter: 3, title: 'Dynamic batching', view: 'data', speed: 10,
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 0 })], traffic: { rate: 12000, durationUs: 30 * SECOND }, budgetBytes: 0, seed }),
    intro: [
      'Without a queue delay every request is sent as soon as an instance is free, so batches stay small and each pays the fixed cost of a run.',
      'Raise max_queue_delay_microseconds: the batcher waits a little for more requests and sends bigger batches. For a memory-bound model (this MLP) a batch of 32 costs barely three times a batch of 1.',
    ],
    watch: ['Requests queue up, then leave together as one batch; the label says why the batch was sent.', 'Move the delay slider to 500 µs, then 2000 µs: watch the batch size and the Performance view.'],
    formulas: ['batchThroughput', 'qps'],
  },
  {
    id: 'backends', chapter: 4, title: 'Multiple backends', view: 'performance', speed: 100,
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 200 }), mlpTensorRT()], traffic: { rate: 3000, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    intro: [
      'The same network can be served by different backends: ONNX Runtime on CPU here, and a TensorRT plan on a GPU (modelled from typical numbers, labelled as such).',
      'Each backend has its own cost per batch; the speedup is the ratio of their costs for the same work.',
    ],
    watch: ['Latency and compute time of the two models side by side (pick each in the model menu).', 'The speedup card compares per-sample compute time.'],
    formulas: ['speedup', 'batchThroughput'],
  },
  {
    id: 'concurrency', chapter: 5, title: 'Concurrent scheduling and the memory budget', view: 'state', speed: 100,
    scenario: (seed) => ({ models: [cnn({}, 1)], traffic: { rate: 4500, durationUs: 60 * SECOND }, budgetBytes: 640 * MiB, seed }),
    intro: [
      'A compute-bound model (this CNN) gains almost nothing from bigger batches. What helps is running several instances at once: each instance takes its own batch.',
      'Every instance costs memory: workspace plus activations for its largest batch. A budget stops you before the device runs out, instead of crashing.',
    ],
    watch: ['Queue depth grows with one instance. Add instances with the + button and watch it fall.', 'Keep adding: the server refuses the instance that would pass the memory budget, and says why.'],
    formulas: ['memoryTotal', 'qps'],
  },
  {
    id: 'operations', chapter: 6, title: 'Operations: health, metrics, load testing', view: 'performance', speed: 1000,
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 1000 })], traffic: { rate: 5000, durationUs: 120 * SECOND }, budgetBytes: 0, seed }),
    intro: [
      'A live server answers GET /v2/health/live and /v2/health/ready (for load balancers), exposes Prometheus metrics at /metrics, and per-model statistics at /v2/models/<m>/stats.',
      'Load testing (npx inferscope perf, or the Load panel) measures throughput against latency. Little\'s law ties them together: requests in flight = rate × latency.',
    ],
    watch: ['Throughput and p99 over time; the Little\'s law card with live numbers.', 'Switch to the live server and run the same scenario from the Load panel.'],
    formulas: ['qps', 'batchThroughput'],
  },
];

export function lessonById(id: string): Lesson | undefined {
  return LESSONS.find((l) => l.id === id);
}
