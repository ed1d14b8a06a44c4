/**
 * The lessons' text in English: one claim per lesson, what the picture shows, what to look at, and the
 * caption of its experiment. The Chinese text (lessons-zh.ts) has the same shape, checked by the type.
 */
import { STREAMING_EN } from './lesson-streaming';
import { AUTOTUNE_EN } from './lesson-autotune';
import { SEATS_EN } from './lesson-seats';
import { ACCELERATOR_EN } from './lesson-accelerator';
import { REBUILD_EN } from './lesson-rebuild';
import { KV_LIMIT_EN } from './lesson-kv-limit';
import { CHUNK_EN } from './lesson-chunk';

export interface LessonText {
  title: string;
  /** the one sentence the lesson proves on screen */
  claim: string;
  intro: string[];
  watch: string[];
  /** under the experiment: what to look at in its table */
  caption: string;
}

export type LessonId = 'repository' | 'config' | 'batching' | 'backends' | 'concurrency' | 'operations' | 'course' | 'online' | 'offline' | 'mixed' | 'streaming' | 'autotune' | 'seats' | 'accelerator' | 'rebuild' | 'kvlimit' | 'chunked';

export const LESSONS_EN: Record<LessonId, LessonText> = {
  streaming: STREAMING_EN,
  autotune: AUTOTUNE_EN,
  seats: SEATS_EN,
  accelerator: ACCELERATOR_EN,
  rebuild: REBUILD_EN,
  kvlimit: KV_LIMIT_EN,
  chunked: CHUNK_EN,
  repository: {
    title: 'The model repository',
    claim: 'A model repository is plain folders: one per model, numbered versions inside, and the version policy decides which versions are served.',
    intro: [
      'A Triton server serves models from a repository: one folder per model, holding config.pbtxt and one numbered folder per version with the model file (model.onnx, model.plan, …).',
      'The version policy decides which versions load (by default only the latest). Each loaded version gets its own scheduler and instances.',
    ],
    watch: ['Each model card: its versions, backend and state.', 'Click a model to see its files and the config Triton reads.', 'The repository size card adds up the model files listed beside it.'],
    caption: 'The cards on the left are the folders; the size card is the sum of the files they list.',
  },
  config: {
    title: 'The model config (and its common mistakes)',
    claim: 'The server checks config.pbtxt before loading anything, and every common mistake gets a precise message.',
    intro: [
      'config.pbtxt tells Triton the model\'s inputs, outputs, batching and instances, in protobuf text format.',
      'Common mistakes: writing the batch dimension into dims (with max_batch_size > 0 Triton prepends it: dims: [784], not [1, 784]); a preferred_batch_size larger than max_batch_size; a name that differs from the folder; a platform and backend that do not match.',
    ],
    watch: ['Pick each mistake: the checker below shows the message the server gives.', 'Fix the text by hand and watch the message turn into "valid".'],
    caption: 'Each example is checked by the same parser and validator the server runs.',
  },
  batching: {
    title: 'Dynamic batching',
    claim: 'Batching lets one instance serve a load that batch 1 cannot; max_queue_delay buys bigger batches (less instance time per request) at a latency cost when traffic is moderate, and matters little under overload.',
    intro: [
      'Without dynamic_batching every request runs alone and pays the fixed cost of a run. Once requests arrive faster than one run per request can go, the queue and the latency grow without bound.',
      'With dynamic_batching, requests that are waiting leave together. Even with max_queue_delay 0 an overloaded queue forms full batches by itself; the delay only matters when the queue is short: it waits a little so batches grow.',
    ],
    watch: ['Requests queue up, then leave together as one batch; the label says why the batch was sent.', 'Move the delay slider next to the picture to 2000 µs: batches grow, each request waits longer.'],
    caption: 'Table 1: the same overload with batching off and on. Table 2: delay 0 vs 2 ms at a moderate load: batch size and instance time per request vs latency. Table 3: memory-bound MLP vs compute-bound CNN on the same traffic.',
  },
  backends: {
    title: 'Multiple backends',
    claim: 'The same network with the same weights does not cost the same on every backend: on this machine PyTorch (TorchScript) needs more instance time per request than ONNX Runtime, and how much more depends on the batch size.',
    intro: [
      'mlp_classifier and mlp_classifier_torch hold the same weights: one runs in ONNX Runtime worker threads, the other in a PyTorch stub process per instance, the way Triton runs its python backend. Both costs are measured here with inferscope calibrate.',
      'At batch 1 the two compute the network in about the same time; the request to the stub process and back is what makes PyTorch slower. In batches of several requests, as at the heavier load, ONNX Runtime\'s kernels pull ahead and the compute itself differs; the gap depends on the batch size (on this machine it closes again at 48-64).',
    ],
    watch: ['Latency and compute time of the two models side by side (pick each in the model menu).', 'The tables: instance time per request through the server and for the compute alone, at batches of about 1 and at bigger batches.'],
    caption: 'Every row gets the same arrivals. "through this server" is what a request waits for (hand-off included); "backend compute alone" is onnxruntime\'s session.run or torch\'s forward.',
  },
  concurrency: {
    title: 'Concurrent scheduling and the memory budget',
    claim: 'More instances help until they fill the CPU cores, then they only share them; and each instance costs memory, so the budget refuses the one that would not fit.',
    intro: [
      'A compute-bound model (this CNN) gains little from bigger batches. What helps is running several instances at once: each instance takes its own batch, on its own core.',
      'Past the cores, instances take turns on the same cores: more instances, same throughput. Every instance also costs memory (workspace plus activations for its largest batch); a budget stops you before the device runs out.',
    ],
    watch: ['Queue depth grows with one instance. Add instances with the + button next to the picture and watch it fall.', 'Keep adding: the server refuses the instance that would pass the memory budget, and says why.'],
    caption: 'Same overload, 1 to 4 instances on a 2-core host: throughput doubles from 1 to 2 and stops there.',
  },
  operations: {
    title: 'Operations: health, metrics, load testing',
    claim: 'A load sweep finds the throughput limit: past it latency climbs while throughput stays flat; Little\'s law ties in-flight requests, rate and latency together.',
    intro: [
      'A live server answers GET /v2/health/live and /v2/health/ready (for load balancers), exposes Prometheus metrics at /metrics, and per-model statistics at /v2/models/<m>/stats.',
      'Load testing (npx inferscope perf, or the Load panel) measures throughput against latency. Little\'s law ties them together: requests in flight = rate × latency.',
    ],
    watch: ['Throughput and p99 over time; the Little\'s law card computed over the same window as the charts.', 'The sweep table: where throughput stops following the offered rate.'],
    caption: 'Each row offers more traffic on the same config: the knee is where throughput stops rising and p99 jumps.',
  },
  course: {
    title: 'Course demo: a naive batcher next to Triton\'s rule',
    claim: 'A batcher that only sends full batches makes a request that just missed one wait for max_batch - 1 more arrivals, and with sparse traffic until the final flush; max_queue_delay_microseconds caps that wait.',
    intro: [
      'The course\'s Python demo batches naively: requests join a queue, and only when it holds max_batch (4) requests is the whole queue processed, taking process_time (0.2 s) whatever the batch size. After the last arrival it sleeps max_wait (0.3 s) and flushes what is left. It has a max_wait, but never uses it while requests arrive.',
      'Triton\'s dynamic batcher (here the real scheduler, on the same arrivals) also sends a batch when the oldest request has waited max_queue_delay_microseconds, or at once when the delay is 0 and the instance is free.',
    ],
    watch: ['The two lanes: each line is one request\'s wait, each bar a batch. The naive lane has long lines for the requests that arrive just after a batch left.', 'Make the arrivals sparse with the gap slider: the naive batcher holds everything until the final flush; Triton\'s waits stay at most the delay.'],
    caption: 'Same seeded arrivals in both lanes; waits are measured from arrival to the start of the request\'s batch.',
  },
  online: {
    title: 'Scenario: an online image classifier with a latency budget',
    claim: 'With a 10 ms p99 budget, a short delay and small preferred sizes keep latency inside it while two instances carry the load.',
    intro: ['An online service answers people: the CNN classifier at 3,000 images/s, max_queue_delay 500 µs, preferred sizes 4 and 8, two instances on the two cores.'],
    watch: ['p99 on the latency chart against the 10 ms budget.', 'Try a 5 ms delay on the controls: p99 rises but stays inside the budget, because at this rate a batch reaches the preferred size 4 long before 5 ms; then clear the preferred sizes and the delay decides: batches and p99 grow together.'],
    caption: 'Latency first: the delay is a fraction of the budget.',
  },
  offline: {
    title: 'Scenario: a batch-heavy offline job',
    claim: 'For an offline job only throughput counts: a long delay and large preferred sizes fill every batch.',
    intro: ['An offline job scores a backlog: the MLP at 40,000 requests/s, max_batch_size 64, preferred size 64, a 5 ms delay, two instances.'],
    watch: ['The batch-size histogram: almost every batch is full.', 'Throughput on its chart; latency is allowed to be milliseconds.'],
    caption: 'Throughput first: full batches, latency in milliseconds is fine.',
  },
  mixed: {
    title: 'Scenario: a mixed-priority service',
    claim: 'When the instance cannot keep up, priority levels decide who waits: urgent requests (P1) leave first and wait a fraction of a millisecond, while the batch traffic (P2) queues behind them.',
    intro: ['One MLP serves two kinds of clients: 20% urgent requests at priority 1 and 80% batch jobs at priority 2, in all a quarter more than one instance serves in batches of max_batch_size 8 (the rate is set from the measured cost), priority_levels 2.'],
    watch: ['Queue depth per priority on the state view: P1 stays near zero, P2 carries the queue.', 'Colour the data flow by priority in the header.'],
    caption: 'Priority levels decide who leaves first, not who is served at all.',
  },
};
