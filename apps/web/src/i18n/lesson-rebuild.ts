/**
 * Lesson 15 "the batch is rebuilt every step" (teach/RebuildDemo.tsx, runs in teach/rebuild-run.ts) in both
 * languages: its lesson text (joined into lessons-en.ts / lessons-zh.ts) and the demo's labels and verdict
 * sentences, chosen by the figures on screen. The modelled step cost line is shared by lessons 15-17.
 */
import type { StepCost } from '@inferscope/core/iterative';

export const REBUILD_EN = {
  title: 'The batch is rebuilt every step: continuous batching of a generative model',
  claim: 'Continuous batching re-forms the batch at every step: the same tokens come out in less time, and a newcomer\'s first token comes within a step or two, not after the whole batch.',
  intro: [
    'A language model answers one token per step: a step runs every sequence in the batch once, reading its KV cache, and samples each one\'s next token. One answer needs 4 steps, another 90.',
    'A request-level batch (the dynamic batcher; TensorRT-LLM\'s V1) fixes its members for the whole execution: a sequence that ends early pads the batch until the longest ends, and a request that arrives one step late waits for the whole batch. Continuous batching (Orca\'s iteration-level scheduling, vLLM, TensorRT-LLM\'s in-flight batching) forms the batch again at every step boundary.',
    'The picture is core\'s simulator running the scheduler the server runs for tiny_lm_generate, on the same seeded arrivals both ways: 24 requests, one per 6 decode steps on average, a quarter wanting a long answer (48-96 tokens), the rest 4-16; up to 8 sequences per step.',
  ],
  watch: [
    'Each row is a slot in the batch and each cell a step: prefill and decode in their colours, grey where a finished sequence still holds its slot.',
    'Request-level: the grey is work spent on padding, and nobody new starts until the batch\'s longest answer ends.',
    'Continuous: a slot frees the step after its sequence\'s last token, and the next request takes it at the next boundary.',
  ],
  caption: 'The token timeline of the run the knob picks; the table: both runs, from the same arrivals.',
};

export const REBUILD_ZH = {
  title: '批次每一步都重新组建：生成式模型的连续批处理',
  claim: '连续批处理在每一步都重新组建批次：同样多的令牌用更短的时间生成完，新请求的第一个令牌在一两步之内就出来，而不必等整个批次结束。',
  intro: [
    '语言模型每一步回答一个令牌：一步里批次中的每个序列各运行一次，读取自己的 KV 缓存，再采样出下一个令牌。有的回答只要 4 步，有的要 90 步。',
    '请求级批处理（动态批处理器；TensorRT-LLM 的 V1）在整个执行期间固定批次成员：提前结束的序列要一直占位填充，直到最长的那个结束；晚到一步的请求也得等整个批次结束。连续批处理（Orca 的迭代级调度、vLLM、TensorRT-LLM 的飞行中批处理）则在每个步边界重新组建批次。',
    '下面的图由核心模拟器运行服务器为 tiny_lm_generate 使用的同一个调度器得到，两种方式用同样的带种子到达序列：24 个请求，平均每 6 个解码步到达一个，四分之一要长回答（48–96 个令牌），其余 4–16 个；每步最多 8 个序列。',
  ],
  watch: [
    '每一行是批次中的一个槽位，每个格子是一步：预填充和解码用各自的颜色，灰色表示已经结束的序列仍占着槽位。',
    '请求级：灰色是花在填充上的计算，批次中最长的回答结束之前，没有新请求能开始。',
    '连续批处理：序列的最后一个令牌之后，它的槽位在下一步就空出来，下一个请求在下一个步边界接上。',
  ],
  caption: '旋钮所选运行的令牌时间线；表格：同样到达序列下的两次运行。',
};

export interface RebuildVerdict {
  shown: string;
  tokensStatic: number;
  tokensContinuous: number;
  spanStatic: string;
  spanContinuous: string;
  tpsStatic: string;
  tpsContinuous: string;
  ttftP50Static: string;
  ttftP50Continuous: string;
  ttftP99Static: string;
  ttftP99Continuous: string;
  /** continuous: the steps a newcomer saw until its first token (the one running when it came, then its own), p50 */
  steps: string;
  padStatic: number;
}

/** Where the lessons' step cost comes from (teach/gen-run.ts picks it): said on screen under each demo. */
export type GenCostSource =
  | { kind: 'fitted'; cost: StepCost; steps: number; r2: number }
  | { kind: 'modelled'; cost: StepCost };

export interface GenDemoText {
  /** where the step cost comes from and its terms, said on screen (lessons 15-17) */
  cost: (c: GenCostSource) => string;
  rows: string;
  /** how much of the run the picture shows (it follows the stage header's time), and what the verdict is from */
  shown: (step: number, steps: number, at: string, span: string, whole: boolean) => string;
}

/** the cost's terms, the two optional ones only where the table has them */
const terms = (c: StepCost, us: string, seq: string, token: string, call: string, context: string) =>
  [`${Math.round(c.fixed_us)} ${us}`, `${Math.round(c.per_sequence_us)} ${us}/${seq}`, `${Math.round(c.per_token_us)} ${us}/${token}`,
    ...(c.per_extra_call_us ? [`${Math.round(c.per_extra_call_us)} ${us}/${call}`] : []),
    ...(c.per_context_us ? [`${c.per_context_us.toFixed(2)} ${us}/${context}`] : [])].join(' + ');

/** the step cost line and the table's summary, the same in lessons 15-17 */
export const GEN_DEMO_EN: GenDemoText = {
  cost: (c) => (c.kind === 'fitted'
    ? `Step cost: tiny_lm_generate's fit to the server's continuous steps (${c.steps}, r² ${c.r2.toFixed(2)}): ${terms(c.cost, 'µs', 'seq', 'token', 'extra call', 'context slot')}`
    : `Modelled step cost (no tiny_lm calibration ships): ${terms(c.cost, 'µs', 'seq', 'token', 'extra call', 'context slot')}`),
  rows: 'Every run (the rows the verdict is computed from)',
  shown: (step, steps, at, span, whole) => (whole
    ? `The picture: all ${steps} steps (to ${span}), as the verdict.`
    : `The picture: step ${step} of ${steps} (${at} of ${span}); the verdict and the rows are from the whole runs.`),
};

export const GEN_DEMO_ZH: GenDemoText = {
  cost: (c) => (c.kind === 'fitted'
    ? `步开销：tiny_lm_generate 在服务器上连续批处理各步的实测拟合（${c.steps} 步，r² ${c.r2.toFixed(2)}）：${terms(c.cost, '微秒', '序列', '令牌', '额外调用', '上下文位')}`
    : `步开销为建模值（未随附 tiny_lm 校准）：${terms(c.cost, '微秒', '序列', '令牌', '额外调用', '上下文位')}`),
  rows: '每次运行（结论由这些行算出）',
  shown: (step, steps, at, span, whole) => (whole
    ? `图中：全部 ${steps} 步（到 ${span}），与结论相同。`
    : `图中：第 ${step} / ${steps} 步（${span} 中的 ${at}）；结论和各行来自完整运行。`),
};

export interface RebuildDemoText extends GenDemoText {
  batching: string;
  modes: { static: string; continuous: string };
  table: { mode: string; tokens: string; span: string; tps: string; ttft50: string; ttft99: string; pad: string; steps: string };
  verdict: (v: RebuildVerdict, holds: boolean) => string;
}

export const REBUILD_DEMO_EN: RebuildDemoText = {
  ...GEN_DEMO_EN,
  batching: 'Batching',
  modes: { static: 'request-level', continuous: 'continuous' },
  table: { mode: 'batching', tokens: 'tokens', span: 'total time', tps: 'tokens/s', ttft50: 'TTFT p50', ttft99: 'TTFT p99', pad: 'padded slot-steps', steps: 'steps' },
  verdict: (v, holds) => holds
    ? `The same ${v.tokensContinuous} tokens in ${v.spanContinuous} continuous vs ${v.spanStatic} request-level (${v.tpsContinuous} vs ${v.tpsStatic} tokens/s). First token p50 ${v.ttftP50Continuous} (${v.steps} steps) vs ${v.ttftP50Static}, p99 ${v.ttftP99Continuous} vs ${v.ttftP99Static}. Request-level padded ${v.padStatic} slot-steps.`
    : `Continuous: ${v.tokensContinuous} tokens in ${v.spanContinuous}, first token p50 ${v.ttftP50Continuous}, p99 ${v.ttftP99Continuous}; request-level: ${v.tokensStatic} tokens in ${v.spanStatic}, p50 ${v.ttftP50Static}, p99 ${v.ttftP99Static}. These runs do not show continuous batching serving the same tokens sooner.`,
};

export const REBUILD_DEMO_ZH: RebuildDemoText = {
  ...GEN_DEMO_ZH,
  batching: '批处理方式',
  modes: { static: '请求级', continuous: '连续' },
  table: { mode: '批处理方式', tokens: '令牌数', span: '总时间', tps: '令牌/秒', ttft50: '首令牌 p50', ttft99: '首令牌 p99', pad: '填充的槽位步', steps: '步数' },
  verdict: (v, holds) => holds
    ? `同样的 ${v.tokensContinuous} 个令牌，连续批处理用了 ${v.spanContinuous}，请求级用了 ${v.spanStatic}（每秒 ${v.tpsContinuous} 对 ${v.tpsStatic} 个令牌）。首令牌时间：p50 ${v.ttftP50Continuous}（${v.steps} 步）对 ${v.ttftP50Static}，p99 ${v.ttftP99Continuous} 对 ${v.ttftP99Static}。请求级填充了 ${v.padStatic} 个槽位步。`
    : `连续批处理：${v.tokensContinuous} 个令牌用了 ${v.spanContinuous}，首令牌 p50 ${v.ttftP50Continuous}、p99 ${v.ttftP99Continuous}；请求级：${v.tokensStatic} 个令牌用了 ${v.spanStatic}，p50 ${v.ttftP50Static}、p99 ${v.ttftP99Static}。这几次运行没有显示出连续批处理更快地生成同样的令牌。`,
};
