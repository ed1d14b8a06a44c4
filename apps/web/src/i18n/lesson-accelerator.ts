/**
 * The "two models, one accelerator" lesson (teach/AcceleratorDemo.tsx, runs in teach/accelerator-run.ts
 * and teach/cache-run.ts) in both languages: its lesson text (joined into lessons-en.ts / lessons-zh.ts)
 * and the demo's labels and verdict sentences, chosen by the figures on screen. Model names, config fields
 * and the rate limiter's modes stay verbatim.
 */

export const ACCELERATOR_EN = {
  title: 'Two models, one accelerator: the rate limiter and the response cache',
  claim: 'Two heavy models on one accelerator slow each other when they run at once; the rate limiter makes them take turns, the lower priority weight more often. A response cache skips repeats: at a 50% hit rate the compute halves; unique inputs pay only the lookup.',
  intro: [
    'One GPU often serves several models. Two heavy ones that run batches at the same time share its cores: each batch takes about twice as long, and neither gets anything done sooner.',
    'Triton\'s rate limiter (--rate-limit execution_count) lets an instance start a batch only when the resources its instance_group\'s rate_limiter names are free. Give both models the one resource accel of count 1 and they take turns. Who goes next is a weight: executions x priority, lowest first, so a model at priority 1 gets four turns for every one of a model at priority 4.',
    'The picture is core\'s simulator running the server\'s scheduler and rate limiter: vision_net and speech_net, one instance each, on an accelerator modelled as one core; each is offered three quarters of what it serves alone, so together they ask for 1.5 times what the accelerator gives. The second part puts the response cache in front of vision_net.',
  ],
  watch: [
    'Limiter off: both lanes are busy at once, and every batch bar is twice as long.',
    'Limiter on: the bars alternate, never overlapping; the hatched stretches are an instance waiting for accel with its batch formed (waiting, not idle).',
    'Raise speech_net\'s priority number: vision_net gets more turns and its p99 falls; speech_net waits longer.',
    'The cache: repeated inputs are answered at the door and never reach the queue; unique ones all miss and only pay the lookup.',
  ],
  caption: 'Each model\'s instance over time (busy, waiting for the resource), and each model\'s turns, batch time and p99; the cache\'s compute time, hits and misses, from the same seeded arrivals.',
};

export const ACCELERATOR_ZH = {
  title: '两个模型，一块加速器：速率限制器与响应缓存',
  claim: '共用一块加速器的两个重模型同时运行时会互相拖慢；Triton 的速率限制器让它们轮流运行，优先级权重小的那个轮到得更多。响应缓存跳过重复的计算：命中率 50% 时计算量减半，而互不相同的输入只多付一次查找的代价。',
  intro: [
    '一块 GPU 常常要同时服务好几个模型。两个重模型同时跑批次时会分享它的计算核心：每一批都要花大约两倍的时间，谁也不会因此更早完成。',
    'Triton 的速率限制器（execution_count 模式）只在一个实例的 instance_group 里 rate_limiter 所列的资源空闲时，才让它开始一个批次。让两个模型都需要同一个数量为 1 的资源 accel，它们就会轮流运行。下一个轮到谁由权重决定：执行次数 × priority，小的先走，所以 priority 为 1 的模型每轮到四次，priority 为 4 的模型才轮到一次。',
    '下面的图由核心模拟器运行服务器同一个调度器和速率限制器得到：vision_net 和 speech_net 各一个实例，加速器模拟为一个核心；每个模型收到的请求是它单独运行时能处理量的四分之三，合起来就是加速器能力的 1.5 倍。第二部分把响应缓存放在 vision_net 前面。',
  ],
  watch: [
    '限制器关闭：两条泳道同时忙碌，每个批次的横条都长了一倍。',
    '限制器开启：横条交替出现，从不重叠；斜线部分是实例已经组好批次、正在等待 accel（是在等待，不是空闲）。',
    '把 speech_net 的 priority 数字调大：vision_net 轮到的次数变多，p99 下降；speech_net 等得更久。',
    '缓存：重复的输入在门口就得到应答，根本不进队列；互不相同的输入全部未命中，只多付一次查找的代价。',
  ],
  caption: '每个模型的实例随时间的状态（忙碌、等待资源），以及每个模型轮到的次数、批次耗时和 p99；缓存的计算时间、命中与未命中，全部来自同样的带种子的请求序列。',
};

export interface LimiterVerdict {
  on: boolean;
  /** speech_net's priority shown, and the widest the knob offers */
  priority: number;
  widest: number;
  /** batch time per model (vision_net, speech_net): with the limiter off, and on (the run shown; at equal priorities while off) */
  offBatch: [string, string];
  onBatch: [string, string];
  /** turns and p99 per model in the run shown */
  turns: [number, number];
  p99: [string, string];
  /** turns at the widest priority, and how long the two computed at once in the run shown */
  widestTurns: [number, number];
  overlap: string;
}

export interface CacheVerdict {
  hits: number;
  sent: number;
  hitRate: string;
  computeOff: string;
  computeOn: string;
  ratio: string;
  uniqueCompute: string;
  uniqueHits: number;
  lookup: string;
}

export interface AcceleratorDemoText {
  part: string;
  parts: { limiter: string; cache: string };
  mode: string;
  modes: { off: string; execution_count: string };
  priority: string;
  /** shown beside the priority buttons while the limiter is off */
  ignored: string;
  inputs: string;
  inputChoices: { repeated: string; unique: string };
  cache: string;
  cacheChoices: { off: string; on: string };
  busy: string;
  waiting: string;
  axis: string;
  figures: { model: string; turns: string; batch: string; wait: string; p99: string };
  cacheFigures: { row: string; compute: string; hits: string; misses: string; p50: string };
  rowName: (inputs: string, cache: string) => string;
  rows: string;
  limiterVerdict: (v: LimiterVerdict, holds: boolean) => string;
  cacheVerdict: (v: CacheVerdict, holds: boolean) => string;
}

export const ACCELERATOR_DEMO_EN: AcceleratorDemoText = {
  part: 'Part',
  parts: { limiter: 'rate limiter', cache: 'response cache' },
  mode: '--rate-limit',
  modes: { off: 'off', execution_count: 'execution_count' },
  priority: 'speech_net priority',
  ignored: '(ignored while off)',
  inputs: 'Inputs',
  inputChoices: { repeated: 'half repeated', unique: 'all unique' },
  cache: 'Cache',
  cacheChoices: { off: 'off', on: 'on' },
  busy: 'busy',
  waiting: 'waiting for accel',
  axis: 'simulated time',
  figures: { model: 'model', turns: 'turns', batch: 'batch', wait: 'waited for accel', p99: 'p99' },
  cacheFigures: { row: 'run', compute: 'compute', hits: 'hits', misses: 'misses', p50: 'p50' },
  rowName: (inputs, cache) => `${inputs}, cache ${cache}`,
  rows: 'Every run (the rows the verdict is computed from)',
  limiterVerdict: (v, holds) => {
    if (!holds) return `These runs do not bear the claim out: with the limiter off a batch took ${v.offBatch[0]} / ${v.offBatch[1]}, with it ${v.onBatch[0]} / ${v.onBatch[1]}; at priority ${v.widest} vision_net got ${v.widestTurns[0]} turns and speech_net ${v.widestTurns[1]}.`;
    if (!v.on) return `Limiter off: both computed at once for ${v.overlap}, and a batch took ${v.offBatch[0]} / ${v.offBatch[1]}, against ${v.onBatch[0]} / ${v.onBatch[1]} taking turns. Turns ${v.turns[0]} and ${v.turns[1]}; p99 ${v.p99[0]} and ${v.p99[1]}.`;
    const share = v.priority === 1 ? `Equal priorities share the turns: ${v.turns[0]} and ${v.turns[1]}` : `vision_net (priority 1) got ${v.turns[0]} turns to speech_net's ${v.turns[1]}`;
    return `Priority ${v.priority}: never both at once; a batch took ${v.onBatch[0]} / ${v.onBatch[1]} (${v.offBatch[0]} / ${v.offBatch[1]} with the limiter off). ${share}; p99 ${v.p99[0]} and ${v.p99[1]}.`;
  },
  cacheVerdict: (v, holds) => holds
    ? `Half repeated: ${v.hits} of ${v.sent} answered at the door (${v.hitRate}); compute ${v.computeOn} instead of ${v.computeOff} (${v.ratio}). All unique: ${v.uniqueHits} hits, the same ${v.uniqueCompute}, each answer ${v.lookup} (the lookup) later.`
    : `These runs do not bear the claim out: ${v.hits} hits of ${v.sent} (${v.hitRate}), compute ${v.computeOn} with the cache against ${v.computeOff} without (${v.ratio}); unique inputs: ${v.uniqueHits} hits, compute ${v.uniqueCompute}.`,
};

export const ACCELERATOR_DEMO_ZH: AcceleratorDemoText = {
  part: '部分',
  parts: { limiter: '速率限制器', cache: '响应缓存' },
  mode: '--rate-limit',
  modes: { off: '关闭', execution_count: 'execution_count' },
  priority: 'speech_net 的 priority',
  ignored: '（关闭时不起作用）',
  inputs: '输入',
  inputChoices: { repeated: '一半重复', unique: '全部不同' },
  cache: '缓存',
  cacheChoices: { off: '关闭', on: '开启' },
  busy: '忙碌',
  waiting: '等待 accel',
  axis: '模拟时间',
  figures: { model: '模型', turns: '轮次', batch: '批次耗时', wait: '等待 accel', p99: 'p99' },
  cacheFigures: { row: '运行', compute: '计算时间', hits: '命中', misses: '未命中', p50: 'p50' },
  rowName: (inputs, cache) => `${inputs}，缓存${cache}`,
  rows: '每次运行（结论由这些行算出）',
  limiterVerdict: (v, holds) => {
    if (!holds) return `这几次运行没有证实这个结论：限制器关闭时一个批次耗时 ${v.offBatch[0]} / ${v.offBatch[1]}，开启时 ${v.onBatch[0]} / ${v.onBatch[1]}；priority 为 ${v.widest} 时 vision_net 轮到 ${v.widestTurns[0]} 次，speech_net 轮到 ${v.widestTurns[1]} 次。`;
    if (!v.on) return `限制器关闭：两者同时计算了 ${v.overlap}，一个批次耗时 ${v.offBatch[0]} / ${v.offBatch[1]}，轮流运行时只要 ${v.onBatch[0]} / ${v.onBatch[1]}。轮次 ${v.turns[0]} 和 ${v.turns[1]}；p99 ${v.p99[0]} 和 ${v.p99[1]}。`;
    const share = v.priority === 1 ? `priority 相同时平分轮次：${v.turns[0]} 和 ${v.turns[1]}` : `vision_net（priority 1）轮到 ${v.turns[0]} 次，speech_net 只轮到 ${v.turns[1]} 次`;
    return `speech_net 的 priority 为 ${v.priority}：两者从不同时计算，一个批次耗时 ${v.onBatch[0]} / ${v.onBatch[1]}（限制器关闭时 ${v.offBatch[0]} / ${v.offBatch[1]}）。${share}；p99 ${v.p99[0]} 和 ${v.p99[1]}。`;
  },
  cacheVerdict: (v, holds) => holds
    ? `一半输入重复时，缓存在门口就应答了 ${v.sent} 个请求中的 ${v.hits} 个（${v.hitRate}），实例的计算时间从 ${v.computeOff} 降到 ${v.computeOn}（${v.ratio}）。输入全部不同时命中 ${v.uniqueHits} 次，计算时间同样是 ${v.uniqueCompute}，每个应答只晚了 ${v.lookup}（查找的代价）。`
    : `这几次运行没有证实这个结论：${v.sent} 个请求命中 ${v.hits} 个（${v.hitRate}），有缓存时计算 ${v.computeOn}，没有时 ${v.computeOff}（${v.ratio}）；输入全部不同时命中 ${v.uniqueHits} 次，计算 ${v.uniqueCompute}。`,
};
