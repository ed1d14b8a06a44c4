/**
 * Every piece of UI text, in one place per language: this English table, and `i18n/zh.ts` typed
 * `Strings`, so a key missing there fails the typecheck. `S` always reads the current language
 * (`?lang=zh`, the header's switch); import it as before: `import { S } from '../strings'`.
 * Functions cover text with numbers. Lesson text lives in i18n/lessons-*.ts (content, translated whole),
 * the teaching panel's text in i18n/teach-*.ts (spread in below).
 */
import { LESSONS_EN } from './i18n/lessons-en';
import { TEACH_EN } from './i18n/teach-en';
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
  /** words drawn inside the charts (legends, tick labels, states): canvases read them at draw time */
  chartWords: {
    queue: 'queue', compute: 'compute', now: 'now',
    budget: (v: string) => `p99 budget ${v}`,
    clipped: (n: number) => `${n} clipped`,
    reasons: { REJECTED: 'rejected', CANCELED: 'cancelled', BACKEND: 'backend error', OTHER: 'other' } as Record<string, string>,
  },
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
  sweep: {
    title: 'Sweep (live, no reloads)',
    instances: 'instances',
    maxBatch: 'max_batch (blank: loaded)',
    delay: 'delay µs',
    preferred: 'preferred (none,max,8+16)',
    concurrency: 'concurrency',
    budget: 'p99 budget ms',
    interval: 'window ms',
    start: 'Start sweep',
    stop: 'Stop',
    frontier: 'Throughput vs p99 (◆ Pareto set, ★ best in budget)',
    measuring: 'Measuring the first config…',
    none: 'No sweep yet: pick the axes and press Start sweep.',
    pareto: 'Pareto set',
    best: 'best',
    unstable: 'not stable',
    columns: ['rank', 'config', 'infer/s', 'p50 / p99', 'batch', 'queue / compute', 'memory', 'note'],
    status: (state: string, done: number, total: number, skipped: number) => `${state}: ${done}/${total}${skipped ? `, ${skipped} pruned` : ''}`,
    applyBest: (c: string) => `Apply best (${c})`,
    applied: (c: string) => `Applied ${c}. Save it to config.pbtxt:`,
  },
  protocols: {
    title: 'Requests by protocol',
    modelColumn: 'model version',
    names: { http: 'HTTP', grpc: 'gRPC', in_process: 'in process' },
    cell: (total: string, rate: string) => `${total} · ${rate}/s`,
    rate: (name: string, rate: string) => `${name} ${rate}/s`,
    legend: '● HTTP or in process   ■ gRPC',
    caption: 'Requests that reached each model version since the server started (refusals before queueing included) and their rate over the last second. In process: the load generator and the steps of an ensemble.',
  },
  // performance view
  panels: {
    log: 'log',
    linear: 'linear',
    logTitle: 'Switch the y axis between a robust linear scale (spikes clipped and marked ▲) and a log scale',
    latencyByVersion: 'Latency percentiles (ms)',
    avgBatch: 'Average batch size',
    failures: 'Failures by reason (/s)',
    pending: 'Pending requests (queued)',
    cpu: 'CPU utilisation',
    perSecond: 'per second',
    requests: 'requests',
    solidDashed: 'solid: compute · dashed: queue',
    solidDashedLatency: 'solid: p99 · dashed: p50',
  },
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
  governs: (versions: string, saved: string) => `One config.pbtxt governs versions ${versions} (Triton has no per-version config): this writes the live values of v${saved}.`,
  afterRestart: (version: string, path: string, live: string, written: string) => `after a restart v${version} runs ${path} = ${written} (live now: ${live})`,
  sameForAll: 'Every loaded version already runs these values.',
  savedBackup: (path: string, backup: string) => `Written to ${path}; the previous file is kept as ${backup}.`,
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
  startOn: (target: string) => `Start → ${target}`,
  stop: 'Stop',
  replay: 'Replay trace',
  recordLive: 'Record live traffic',
  stopRecording: 'Stop recording',
  tracePath: 'trace file',
  abCompare: 'A/B compare',
  abA: 'A: delay=µs preferred=8,16 max_batch= instances=',
  abB: 'B (same fields)',
  abRuns: 'A and B per second (solid: throughput, dashed: p99)',
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
  serverRunRequests: (requests: number, batches: number, avg: number) => `server answered ${requests} requests of this run's model in ${batches} batches (avg ${avg.toFixed(1)})`,
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
  /** after a label: Chinese text takes the full-width colon */
  colon: ': ',
  experiment: 'Experiment',
  runExperiment: 'Run the experiment',
  rerunExperiment: 'Run again',
  lookAt: 'What to look at',
  narration: 'What just happened',
  narrationEmpty: 'Press Step: each step says what the scheduler did.',
  measuredHere: 'measured',
  modelledCost: 'modelled',
  calibrationPin: { label: 'Lessons simulate with:', auto: "this server's calibration when it has one", shipped: 'the shipped calibration (pinned)', server: "this server's calibration (pinned)", noServerYet: 'This server has no calibration yet: the shipped one is used until it has run enough batches.' },
  calibrationLive: (models: string, batches: number) => `Costs: live calibration from this server's own batches (${models}; ${batches} batches)`,
  calibrationBundled: (date: string) => `Costs: calibration shipped with InferScope (measured ${date}); a live server that has run traffic gives its own`,
  ...TEACH_EN,
  abRows: { throughput: 'throughput /s', p50: 'p50', p99: 'p99', avgBatch: 'avg batch', rejected: 'rejected' },
  abSide: (side: string, patch: string) => `${side} (${patch})`,
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
