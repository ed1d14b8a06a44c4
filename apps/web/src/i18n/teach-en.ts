/**
 * The teaching panel's English text with numbers in it: experiments, narration, formula cards, the mistake
 * checker, simulator errors, the course demo, misconceptions and interview questions. Spread into the
 * English table (strings.ts); teach-zh.ts has the same shape, checked by its type.
 */
export const TEACH_EN = {
  exp: {
    cols: { setting: 'setting', throughput: 'throughput /s', batch: 'mean batch', p50: 'p50', p99: 'p99', busy: 'instance time / request', lastAnswer: 'last answer at' },
    on: 'batching on',
    off: 'batching off',
    chart: { show: 'Show', current: 'current setting', table: 'The numbers behind the chart', higherBetter: 'higher is better', lowerBetter: 'lower is better' },
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
    backendsTitle: (rate: string, batch: string) => `The same weights on two backends, ${rate} req/s (mean batch ${batch})`,
    backendsVerdict: (slow: string, fast: string, server: string, compute: string, batch: string) =>
      `In batches of ${batch}, ${slow} takes ${server}× the instance time per request of ${fast} through the server, and ${compute}× in compute alone.`,
    sweepTitle: 'Load sweep (same config, rising offered rate)',
    sweepRow: (rate: string) => `offered ${rate}/s`,
    sweepVerdict: (limit: string, p99: string) => `Throughput stops at about ${limit}/s; past it p99 climbs to ${p99} while throughput stays flat.`,
    // when a chosen calibration makes the rows contradict the lesson's claim: what they show instead
    notHere: 'On this calibration the claim does not hold:',
    onOffNotHere: (ratio: string) => `batching on serves ${ratio}× the throughput of batching off, not clearly more.`,
    delayNotHere: (batchRatio: string, busyRatio: string, p50From: string, p50To: string) =>
      `a 2 ms delay makes batches ${batchRatio}× bigger and instance time per request ${busyRatio} of delay 0 (p50 ${p50From} → ${p50To}).`,
    overloadNotHere: (ratio: string, b0: string) => `at delay 0 the mean batch is ${b0} and 2 ms changes throughput by a factor of ${ratio}.`,
    boundNotHere: (mlp: string, cnn: string) => `batching multiplies the MLP's throughput by ${mlp} and the CNN's compute by ${cnn}.`,
    instancesNotHere: (two: string, four: string) => `2 instances give ${two}× the throughput of 1, and 4 give ${four}× of 2.`,
    sweepNotHere: (limit: string, p99: string) => `the highest throughput is ${limit}/s and the last p99 ${p99}: no clear limit in this sweep.`,
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
      generationBatch: { myth: 'A batch of generations runs until its longest answer ends.', truth: 'Only request-level batching works that way. Continuous batching re-forms the batch every step: a finished sequence leaves, a newcomer joins at the next step, and no slot is padding.' },
      kvMemory: { myth: 'Generating is compute-bound: more sequences always fit.', truth: 'Every running sequence holds KV cache blocks for its tokens. When they run out, newcomers wait (guaranteed_no_evict) or the newest is preempted and recomputed (max_utilization), and tokens/s fall.' },
      longPrompt: { myth: 'A long prompt only slows its own request.', truth: 'Read in one step, it makes that step long for every sequence decoding beside it; chunked context spreads it over steps within max_num_tokens.' },
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
};
