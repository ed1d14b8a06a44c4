/**
 * Every piece of UI text, in one place per language: this English table, and `i18n/zh.ts` typed
 * `Strings`, so a key missing there fails the typecheck. `S` always reads the current language
 * (`?lang=zh`, the header's switch); import it as before: `import { S } from '../strings'`.
 * Functions cover text with numbers. Lesson text lives in i18n/lessons-*.ts (content, translated whole).
 */
import { LESSONS_EN } from './i18n/lessons-en';
import { zh } from './i18n/zh';

const en = {
  appName: 'InferScope',
  tagline: 'see the inference server think',
  modeLive: 'Live server',
  modeTeach: 'Teaching mode',
  views: { architecture: 'Architecture', data: 'Data flow', state: 'State', performance: 'Performance' },
  allModels: 'All models',
  model: 'Model',
  window: 'Window',
  colourBy: 'Colour by',
  colourModel: 'model',
  colourPriority: 'priority',
  themeDark: 'Dark',
  themeLight: 'Light',
  largeType: 'Large type',
  connection: {
    connecting: 'Connecting…',
    connected: 'Live',
    disconnected: 'Disconnected',
    resyncing: 'Resyncing…',
    offline: 'Simulator (offline)',
  },
  resync: 'Resync',
  eventsPerSecond: 'events/s',
  dropped: (n: number) => `${n} events sampled away`,
  gaps: (n: number) => `${n} frame gaps`,
  reconnectAttempt: (n: number) => `retry ${n}`,
  noModels: 'No models yet. Waiting for the server snapshot…',
  // architecture
  repositories: 'Repositories',
  models: 'Models',
  scheduler: 'Scheduler queues',
  instances: 'Instances',
  devices: 'Devices',
  versions: 'version',
  backend: 'backend',
  platform: 'platform',
  priority: (p: number) => `priority ${p}`,
  waiting: 'waiting',
  idle: 'idle',
  busyWith: (n: number, next?: number) => (next === undefined ? `batch of ${n}` : `batch of ${n} · next ${next}`),
  budget: 'budget',
  noBudget: 'no budget',
  noBudgetSet: 'no budget set',
  measured: 'measured',
  modelled: 'modelled',
  clickModel: 'Click a model to see its config.',
  configTitle: (m: string) => `${m} — config.pbtxt`,
  validation: 'Validation',
  valid: 'Valid: no problems found.',
  versionPolicy: 'Version policy',
  files: 'Files',
  repoSize: 'repository size',
  close: 'Close',
  pipeline: {
    title: 'ensemble pipeline',
    label: (m: string) => `pipeline of ensemble ${m}`,
    inputs: 'inputs',
    outputs: 'outputs',
    steps: (n: number) => `ensemble of ${n} steps`,
    runsOn: 'runs on the queues and instances of:',
    missing: 'missing',
    instanceCount: (n: number) => `${n} instance${n === 1 ? '' : 's'}`,
    counts: (inFlight: number, sent: number) => `${inFlight} in flight · ${sent} sent`,
    reads: (steps: number[]) => `reads the outputs of step ${steps.join(', ')}`,
    flow: (waiting: number, running: number, sent: number) => `${waiting} queued · ${running} running · ${sent} sent`,
    caption:
      'An ensemble has no queue or instance of its own: each box is one of its steps, and each dot there is one ' +
      "of its requests' step requests, waiting (faint) or running (solid) in that composing model's own queue and batches. " +
      'Arrows follow the tensors from the inputs through the steps to the answers.',
  },
  // data view
  arrivals: 'arrivals',
  queues: 'priority queues',
  batcher: 'dynamic batcher',
  responses: 'responses',
  rejected: 'rejected',
  triggers: {
    preferred: 'preferred size reached',
    max_batch: 'max batch size reached',
    delay: 'max queue delay expired',
    immediate: 'sent at once',
    shape: 'shape differs',
    drain: 'drained',
  } as Record<string, string>,
  lastBatch: (n: number, trigger: string) => `last batch: ${n} — ${trigger}`,
  flowCaption:
    'Each dot is one request. It arrives on the left and waits in its priority queue (oldest on the right). ' +
    'The batcher box shows the batch the queue head would make right now: it fills towards max_batch_size ' +
    '(ticks mark the preferred sizes) while the bar below counts the oldest wait towards max_queue_delay. ' +
    'When a rule fires the batch goes to a free instance, which lights up while it runs (when every instance is busy, one may hold the next batch: "next N"); answers fly out on the right, refusals drop out in red.',
  flow: {
    nextBatch: 'next batch',
    triggersLabel: 'batch triggers',
    fill: 'filled / max_batch_size',
    waited: (w: string, d: string) => `oldest: ${w} of ${d}`,
    noDelay: 'delay 0: sent at once',
    noDynamic: 'no dynamic_batching: each request runs alone',
    noBatchDim: 'max_batch_size 0: no batching',
    sent: (n: number) => `last batch: ${n} sent because`,
    noBatchYet: 'no batch sent yet',
    mix: (n: number, span: string) => `${n} batches in the last ${span}`,
    waitingForInstance: (n: number) => `${n} formed, waiting for an instance`,
    noInstances: 'no instances (model not loaded)',
    moreInstances: (n: number) => `+${n} more instances`,
    running: (elapsed: string, typical: string) => `${elapsed} of ~${typical}`,
    emptyQueue: 'empty',
    rejectedCount: (n: number) => `${n} rejected just now`,
  },
  // state view
  queueDepth: 'Queue depth per priority',
  oldestWait: 'Oldest waiting request vs max_queue_delay',
  pendingNow: (n: number, waitMs: string, delay: string) => `${n} waiting · oldest ${waitMs} · delay limit ${delay}`,
  instanceTimeline: 'Instances over time (each bar = one batch; height = batch size)',
  stateChanges: 'Model and instance state changes',
  configChanges: 'Configuration changes',
  noChanges: 'Nothing yet.',
  noStateChanges: 'No state changes yet. Models loading or unloading and instances starting, draining or failing will be listed here.',
  noConfigChanges: 'No configuration changes yet. Changes from the live controls (or another client) appear here as old → new.',
  noQueueSamples: 'No queue samples yet. Queue depth per priority level appears once requests arrive.',
  noBatchesInWindow: 'No batches in this window yet. Each batch an instance runs will appear as a bar on its lane.',
  axis: {
    inferencesPerS: 'inferences/s',
    latency: 'latency',
    meanTime: 'mean time per request',
    batchSize: 'batch size →',
    batches: 'batches',
    p99: 'p99 latency →',
    bytesUsed: 'bytes in use',
    waiting: 'requests waiting',
    wait: 'wait',
  },
  // performance view
  throughput: 'Throughput (inferences/s)',
  latency: 'Latency p50 / p90 / p99 (ms)',
  queueVsCompute: 'Queue vs compute time (mean, ms)',
  batchHistogram: 'Batch sizes (window)',
  tputVsP99: 'Throughput vs p99 per configuration',
  memoryOverTime: 'Memory over time',
  littlesLaw: "Little's law: in flight = rate × latency",
  littleExplain: (rate: string, lat: string, predicted: string, measured: string) =>
    `${rate}/s × ${lat} = ${predicted} in flight on average (right now: ${measured})`,
  waitingForStats: 'Waiting for the first statistics…',
  noDataInWindow: 'No traffic in this window yet.',
  // controls
  controls: 'Live controls',
  maxQueueDelay: 'max_queue_delay_microseconds',
  preferredBatch: 'preferred_batch_size',
  maxBatch: 'max_batch_size',
  instanceCount: 'instance count',
  apply: 'Apply',
  save: 'Save config.pbtxt…',
  saveConfirm: 'Write to disk',
  cancel: 'Cancel',
  diffTitle: 'Changes to write',
  noDiff: 'The file already matches the live config.',
  viewerNote: 'Read-only viewer: this server needs a control token to change anything.',
  tokenLabel: 'Control token',
  tokenApply: 'Become controller',
  pickModel: 'Pick one model to change its settings.',
  acks: 'Server answers',
  applied: 'applied',
  refused: 'refused',
  pending: 'waiting…',
  noBatching: 'This model has no dynamic_batching block: every request runs alone.',
  // load
  load: 'Load',
  preset: 'Scenario',
  rate: 'rate (req/s)',
  concurrency: 'concurrency',
  duration: 'duration (s)',
  seed: 'seed',
  record: 'record a trace',
  start: 'Start',
  stop: 'Stop',
  replay: 'Replay trace',
  recordLive: 'Record live traffic',
  stopRecording: 'Stop recording',
  tracePath: 'trace file',
  abCompare: 'A/B compare',
  abA: 'A: delay (µs)',
  abB: 'B: delay (µs)',
  abRun: 'Run A then B on the same traffic',
  abRunning: (phase: string) => `running ${phase}…`,
  abResult: 'A/B result',
  metric: 'metric',
  loadStates: { running: 'running', done: 'done', stopped: 'stopped', failed: 'failed' } as Record<string, string>,
  progress: (sent: number, answered: number, errors: number) => `${sent} sent · ${answered} answered · ${errors} errors`,
  skipped: (n: number) => `${n} skipped (too many in flight)`,
  generatorWorker: 'generator: own thread, over HTTP',
  generatorInProcess: "generator: in-process, on the server's loop",
  clientSide: 'client (ms)',
  serverSide: 'server (ms)',
  latencyP50P99: 'latency p50 / p99',
  sendLagQueueCompute: 'send lag p50 / p99 · queue / compute',
  sendLagWarning: (p99: string, limit: string) => `Send lag p99 ${p99} ms is above ${limit} ms: the generator missed its schedule, so these figures describe the client more than the server.`,
  eventLoop: (p99: string) => `server loop p99 ${p99} ms`,
  // teaching
  lessons: 'Lessons',
  play: 'Play',
  pause: 'Pause',
  step: 'Step',
  speed: 'Speed',
  restart: 'Restart',
  timeline: 'Timeline',
  simTime: (ms: string) => `t = ${ms}`,
  whatToWatch: 'What to watch',
  formulas: 'Formulas with live numbers',
  eventsSoFar: (n: number, total: number) => `${n} / ${total} events`,
  tokenRefused: 'The server did not accept this token: you are a viewer.',
  fleet: {
    title: 'Fleet',
    subtitle: 'every replica behind the load balancer, each from its own live stream',
    notAFleet: 'This page is not behind `inferscope fleet` (no /fleet.json):',
    replica: 'Replica',
    status: 'Status',
    inferencesPerS: 'inferences/s',
    requestsPerS: 'requests/s',
    queue: 'queued',
    avgBatch: 'avg batch',
    p99: 'p99',
    memory: 'memory',
    open: 'open',
    total: (up: number, n: number) => `Fleet (${up}/${n} up)`,
    statuses: { connecting: 'connecting', connected: 'live', disconnected: 'down' },
    controlTitle: 'Set max_queue_delay_microseconds',
    target: 'on',
    allReplicas: 'all replicas',
    apply: 'Apply',
    token: 'control token',
    applied: (name: string) => `${name}: applied`,
    refused: (name: string, error: string) => `${name}: ${error}`,
  },
  // language
  language: 'Language',
  configSummary: { delay: (d: string) => `delay ${d}`, preferred: (list: string) => `preferred [${list}]`, none: 'no dynamic batching' },
  simulatedRepository: 'model_repository (simulated)',
  instanceStates: { loading: 'loading', idle: 'idle', busy: 'busy', draining: 'draining', failed: 'failed', stopped: 'stopped' } as Record<string, string>,
  // teaching: lesson text, experiments, narration, formula cards, mistakes, simulator errors
  lessonText: LESSONS_EN,
  claim: 'Claim',
  experiment: 'Experiment',
  runExperiment: 'Run the experiment',
  rerunExperiment: 'Run again',
  lookAt: 'What to look at',
  narration: 'What just happened',
  narrationEmpty: 'Press Step: each step says what the scheduler did.',
  measuredHere: 'measured',
  modelledCost: 'modelled',
  exp: {
    cols: { setting: 'setting', throughput: 'throughput /s', batch: 'mean batch', p50: 'p50', p99: 'p99', busy: 'instance time / request', lastAnswer: 'last answer at' },
    offeredLoad: (rate: string, seconds: string) => `${rate} requests/s for ${seconds}`,
    onOffTitle: (rate: string) => `Batching off vs on, ${rate} req/s (more than batch 1 can serve)`,
    batchingOff: 'no dynamic_batching',
    batchingOn: (delay: string) => `dynamic_batching, delay ${delay}`,
    onOffVerdict: (ratio: string, offCap: string) =>
      `Batching on serves ${ratio}× the throughput of batching off. Off, the instance can only do ${offCap}/s one request at a time, so the queue grows until the traffic stops; on, the waiting requests leave together and one run serves many.`,
    delayTitle: (rate: string) => `max_queue_delay at a moderate load, ${rate} req/s`,
    delayVerdict: (batchRatio: string, busyRatio: string, p50From: string, p50To: string) =>
      `A 2 ms delay makes batches ${batchRatio}× bigger and cuts instance time per request to ${busyRatio} of delay 0; the price is latency: p50 ${p50From} → ${p50To}.`,
    overloadTitle: (rate: string) => `The same delays under overload, ${rate} req/s`,
    overloadVerdict: (ratio: string, b0: string) =>
      `Under overload the queue forms batches by itself: at delay 0 the mean batch is already ${b0}, and 2 ms changes throughput by a factor of ${ratio}. Delay 0 does not mean "no batching".`,
    boundTitle: (rate: string) => `Memory-bound MLP vs compute-bound CNN, ${rate} req/s each`,
    boundRow: (model: string, on: boolean, where: string) => `${model}, batching ${on ? 'on' : 'off'} (${where})`,
    whereSession: 'backend compute alone',
    whereServer: 'through this server',
    boundVerdict: (mlp: string, cnn: string, cnnServer: string) =>
      `Batching multiplies the MLP's throughput by ${mlp} and the CNN's compute by only ${cnn}: the MLP reads its weights once per batch (memory-bound), the CNN computes every image in full (compute-bound). Through this server the CNN still gains ${cnnServer}, from the fixed hand-off cost each run pays, not from its compute.`,
    instancesTitle: (rate: string, cores: number) => `Instances on a ${cores}-core host, ${rate} req/s`,
    instancesRow: (n: number) => `${n} instance${n === 1 ? '' : 's'}`,
    instancesVerdict: (two: string, four: string, cores: number) =>
      `2 instances give ${two}× the throughput of 1; 4 instances give ${four}× of 2: past ${cores} cores the instances only share them.`,
    backendsTitle: (rate: string) => `Two backends, the same ${rate} req/s`,
    backendsVerdict: (speedup: string, fast: string, slow: string) => `${fast} spends ${speedup}× less instance time per request than ${slow} on the same traffic.`,
    sweepTitle: 'Load sweep (same config, rising offered rate)',
    sweepRow: (rate: string) => `offered ${rate}/s`,
    sweepVerdict: (limit: string, p99: string) => `Throughput stops at about ${limit}/s; past it p99 climbs to ${p99} while throughput stays flat.`,
  },
  narrate: {
    queued: (id: string, p: number, depth: number) => `request ${id} queued at P${p} (${depth} waiting)`,
    formed: (n: number, why: string) => `batch of ${n} sent: ${why}`,
    started: (inst: string, n: number) => `${inst} starts a batch of ${n}`,
    completed: (inst: string, n: number, took: string) => `${inst} finished a batch of ${n} in ${took}`,
    answered: (id: string, total: string, queued: string) => `request ${id} answered after ${total} (${queued} queued)`,
    failed: (id: string) => `request ${id} failed`,
    rejected: (id: string, why: string) => `request ${id} refused: ${why}`,
    memory: (used: string, budget: string) => `memory in use ${used} of ${budget}`,
    instance: (inst: string, state: string) => `${inst} is ${state}`,
    model: (model: string, state: string) => `${model} is ${state}`,
    config: (model: string, what: string) => `${model}: ${what} changed`,
    rejectReasons: { queue_full: 'the queue is full', timeout: 'it waited past its timeout', invalid: 'invalid request', unavailable: 'the model is unavailable' } as Record<string, string>,
  },
  cards: {
    repoSize: 'Repository size',
    repoSizeFormula: 'size = Σ model files',
    maxBatchBound: 'max_batch_size is bounded by the backend',
    maxBatchBoundFormula: '1 ≤ max_batch_size ≤ backend limit',
    noLimit: 'no limit',
    capacity: 'Throughput bound of this window',
    capacityFormula: 'throughput ≤ instances × samples per batch / compute per batch',
    capacityLive: (model: string, inst: number, batch: string, compute: string, bound: string, measured: string, util: string) =>
      `${model}: ${inst} × ${batch} / ${compute} = ${bound}/s ≥ measured ${measured}/s (instances busy ${util})`,
    speedup: 'Speedup between backends',
    speedupFormula: 'speedup = instance time per sample (A) / instance time per sample (B)',
    memory: 'Memory total',
    memoryFormula: 'total = Σ models (weights + instances × (workspace + activations × batch))',
    memoryOf: (used: string, budget: string) => ` → ${used} of ${budget} budget`,
    noBudget: 'no',
    little: "Little's law over this window",
    littleFormula: 'mean in flight = throughput × mean latency',
    littleLive: (model: string, rate: string, lat: string, predicted: string, measured: string, window: string) =>
      `${model}: ${rate}/s × ${lat} = ${predicted}; measured mean in flight over the last ${window}: ${measured}`,
  },
  mistakes: {
    heading: 'Common mistakes (folder: mlp_classifier)',
    pick: 'mistake example',
    valid: 'Valid config.',
    serverSays: 'The server says:',
    examples: ['Batch dimension written into dims', 'preferred_batch_size above max_batch_size', 'Typo in a field name', 'Name differs from the folder', 'platform and backend that do not match'],
  },
  simErrors: {
    unknownModel: (m: string) => `unknown model '${m}'`,
    budget: (count: number, model: string, need: string, device: string, budget: string) =>
      `memory budget exceeded: ${count} instances of ${model} need ${need}, the ${device} budget is ${budget}`,
    needsServer: (action: string) => `'${action}' needs the live server (not available in teaching mode)`,
  },
  course: {
    naiveLane: 'naive batcher (course demo)',
    tritonLane: (delay: string) => `Triton's rule (max_queue_delay ${delay})`,
    gap: 'mean arrival gap',
    batchSize: 'max_batch / max_batch_size',
    delay: 'max_queue_delay',
    request: 'request',
    arrived: 'arrived',
    waitNaive: 'wait, naive',
    waitTriton: 'wait, Triton',
    worst: 'worst wait',
    mean: 'mean wait',
    full: 'full',
    flush: 'final flush',
    time: 'time',
    verdict: (naive: string, triton: string, ratio: string) =>
      `Worst wait: naive ${naive}, Triton ${triton} (${ratio}×). The naive batcher never looks at the clock while requests arrive: a request that just missed a batch waits for the queue to fill again, or for the final flush.`,
  },
  myths: {
    heading: 'Common misconceptions',
    showMe: 'Show me',
    cards: {
      biggerBatch: { myth: 'A bigger batch is always faster.', truth: 'Only for a memory-bound model: the compute-bound CNN gets nothing from batching on a CPU, and waiting for a bigger batch costs latency.' },
      moreInstances: { myth: 'More instances always help.', truth: 'Past the CPU cores instances only share them, and each one costs memory until the budget refuses the next.' },
      dimsBatch: { myth: 'dims include the batch dimension.', truth: 'With max_batch_size > 0 Triton adds the batch dimension itself: dims: [784], not [1, 784].' },
      backendPlatform: { myth: 'backend and platform are interchangeable.', truth: 'They name the same thing two ways and must agree (onnxruntime_onnx goes with onnxruntime); giving one is enough.' },
      delayZero: { myth: 'max_queue_delay 0 means no batching.', truth: 'Requests that are already waiting still leave together: under load the queue forms big batches by itself.' },
    },
  },
  interview: {
    heading: 'Interview questions',
    showAnswer: 'See it',
    questions: {
      whenSend: { q: 'How does the dynamic batcher decide when to send a batch?', a: 'It sends when the pending requests reach a preferred size (the largest reachable one), when the next request would pass max_batch_size, when the oldest has waited max_queue_delay_microseconds, or at once when the delay is 0 and an instance is free. Step through the data flow: each batch says which rule fired.' },
      preferred: { q: 'What is the difference between preferred_batch_size and max_batch_size?', a: 'max_batch_size is the hard limit the model accepts (and the batch dimension Triton adds); preferred sizes are targets that send a batch early, before the delay runs out. The batcher box marks the preferred sizes on its way to the maximum.' },
      delayCost: { q: 'What does max_queue_delay cost, and what does it buy?', a: 'Latency: each request may wait up to the delay. At a moderate load it buys bigger batches, so each request costs the instance less time; under overload it buys almost nothing, the queue batches by itself.' },
      instances: { q: 'How do you size instance_group?', a: 'Add instances while throughput grows: on a CPU up to the cores (intra_op_thread_count 1 each), on a GPU until it is busy; stop before the memory budget. Past the cores instances only share them.' },
      queueCompute: { q: 'How do you read queue time against compute time?', a: 'Queue time is waiting for a batch and a free instance, compute time is the run itself. Queue time that grows while compute stays flat means the instances are saturated (add instances or batch more); a large compute time means the model itself is the limit.' },
      perfSweep: { q: 'How do you find the throughput limit with a perf sweep?', a: 'Raise the offered rate (or concurrency) step by step on the same config: throughput follows the offered load until the limit, then stays flat while p99 jumps. perf_analyzer (or npx inferscope perf) does this sweep against a live server.' },
      ensemble: { q: 'Why use an ensemble?', a: 'To serve a pipeline (pre-processing, model, post-processing) as one model: each step keeps its own scheduler, batching and instances, and the data passes between steps inside the server instead of through the client. On the live server the architecture view shows each step as a model of its own, with its own queue and instances.' },
      outOfMemory: { q: 'What happens when GPU memory runs out?', a: 'A real GPU fails the load (or the request) with an out-of-memory error. InferScope accounts every instance\'s memory against a budget and refuses the instance that would not fit, with a clear message, before the device runs out: add instances in lesson 5 until it refuses one.' },
    },
  },
  abRows: { throughput: 'throughput /s', p50: 'p50', p99: 'p99', avgBatch: 'avg batch', rejected: 'rejected' },
  abSide: (side: string, delay: string) => `${side} (delay ${delay})`,
  instanceLess: 'one instance less',
  instanceMore: 'one instance more',
  modeLabel: 'mode',
  viewsLabel: 'views',
};

export type Strings = typeof en;

export const LANGUAGES = ['en', 'zh'] as const;
export type Lang = (typeof LANGUAGES)[number];
/** each language's name in itself, for the header's switch */
export const LANGUAGE_NAMES: Record<Lang, string> = { en: 'English', zh: '中文' };
/** the value of <html lang> */
export const HTML_LANG: Record<Lang, string> = { en: 'en', zh: 'zh-CN' };

const tables: Record<Lang, Strings> = { en, zh };
let current: Strings = en;
let currentLang: Lang = 'en';

export function setLanguage(lang: Lang): void {
  currentLang = lang;
  current = tables[lang] ?? en;
}

export function language(): Lang {
  return currentLang;
}

/** The table of one language, for tests and for text that must not follow the switch. */
export function stringsFor(lang: Lang): Strings {
  return tables[lang];
}

/**
 * The current language's table. A proxy, so modules that imported `S` once read the new language after
 * `setLanguage` (the app re-renders its tree when the language changes; canvases read S every frame).
 */
export const S: Strings = new Proxy({} as Strings, {
  get: (_t, key) => current[key as keyof Strings],
  has: (_t, key) => key in current,
  ownKeys: () => Reflect.ownKeys(current),
  getOwnPropertyDescriptor: (_t, key) => ({ ...Reflect.getOwnPropertyDescriptor(current, key), configurable: true }),
});
