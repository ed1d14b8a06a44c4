/**
 * Lesson 16 "memory, not compute, is the limit" (teach/KvLimitDemo.tsx, runs in teach/kv-limit-run.ts) in
 * both languages: its lesson text and the demo's labels and verdict sentences, chosen by the figures.
 */
import { GEN_DEMO_EN, GEN_DEMO_ZH, type GenDemoText } from './lesson-rebuild';

export const KV_LIMIT_EN = {
  title: 'Memory, not compute, is the limit: the KV cache budget',
  claim: 'The KV budget, not compute, caps how many sequences run at once: shrink it and tokens/s fall; guaranteed_no_evict makes newcomers wait, max_utilization preempts.',
  intro: [
    'Each running sequence keeps the keys and values of every token it has read, in blocks of 16 tokens (PagedAttention\'s paged cache; TensorRT-LLM\'s tokens_per_block). The blocks are taken as it grows and freed when it ends. The budget (max_tokens_in_paged_kv_cache, the memory budget) is the old course\'s VRAM budget in its modern form.',
    'When blocks run short, the scheduler\'s policy (batch_scheduler_policy) decides. guaranteed_no_evict admits a sequence only if its longest possible text fits beside everyone else\'s: nobody is ever evicted, newcomers wait. max_utilization admits on the first chunk and, when a block is missing, preempts the newest sequence: its cache is dropped and its text recomputed later (vLLM\'s recompute preemption).',
    'The picture is core\'s simulator with the server\'s scheduler: 16 requests, one per 1.25 decode steps on average (prompts of 8-24 tokens, answers of 24-64), up to 8 sequences per step, the KV budget from 64 blocks down to 8, under each policy.',
  ],
  watch: [
    'The block map: each square is a block of 16 tokens, coloured by the sequence holding it. Play, pause or step in the header to see the budget fill and free; the lesson opens on the first preemption.',
    'At 64 blocks the 8 slots are the limit; at 16 or 8 blocks the memory is: fewer sequences run at once and tokens/s falls, with the same compute per step.',
    'max_utilization keeps more sequences running, but the timeline below shows its preemptions (red): their tokens are computed again.',
  ],
  caption: 'The KV block map at the header\'s time (the last step finished by then), the token timeline under it; the table: every budget and policy, from the same arrivals.',
};

export const KV_LIMIT_ZH = {
  title: '限制来自内存，而不是计算：KV 缓存预算',
  claim: '同时运行多少序列由 KV 预算而不是算力决定：预算缩小，每秒令牌数就下降；guaranteed_no_evict 让新请求等待，max_utilization 则抢占。',
  intro: [
    '每个正在运行的序列都保存它读过的每个令牌的键和值，按每块 16 个令牌存放（PagedAttention 的分页缓存；TensorRT-LLM 的 tokens_per_block）。序列变长时取用新块，结束时释放。这个预算（max_tokens_in_paged_kv_cache，即内存预算）就是原课程里显存预算的现代形式。',
    '块不够时，由调度器的策略（batch_scheduler_policy）决定。guaranteed_no_evict 只在一个序列可能的最长文本能和其他所有序列并存时才接纳它：谁也不会被逐出，新请求只能等待。max_utilization 只要第一段放得下就接纳；缺块时抢占最新的序列：丢掉它的缓存，之后重新计算它的文本（vLLM 的重算式抢占）。',
    '下面的图由核心模拟器运行服务器的调度器得到：16 个请求，平均每 1.25 个解码步到达一个（提示 8–24 个令牌，回答 24–64 个），每步最多 8 个序列；KV 预算从 64 块降到 8 块，两种策略各跑一遍。',
  ],
  watch: [
    '块图：每个方格是一个 16 令牌的块，颜色表示占用它的序列。用顶部的播放、暂停和单步，看预算如何被占满又被释放；本课打开时停在第一次抢占。',
    '64 块时限制来自 8 个槽位；16 块或 8 块时限制来自内存：同时运行的序列变少，每秒令牌数下降，而每一步的计算并没有变。',
    'max_utilization 能让更多序列同时运行，但下方时间线上的抢占（红色）表示这些令牌要重新计算。',
  ],
  caption: '顶部时间所到之处（那时已完成的最后一步）的 KV 块图，下方是令牌时间线；表格：同样到达序列在每种预算和策略下的结果。',
};

export interface KvLimitVerdict {
  blocks: number;
  policy: string;
  big: number;
  small: number;
  tpsBig: string;
  tpsSmallNoEvict: string;
  tpsSmallMaxUtil: string;
  ttftP99Big: string;
  ttftP99SmallNoEvict: string;
  itlP99Big: string;
  itlP99SmallMaxUtil: string;
  preemptSmallMaxUtil: number;
  /** the run shown */
  tps: string;
  preemptions: number;
}

export interface KvLimitDemoText extends GenDemoText {
  blocks: string;
  policy: string;
  table: { policy: string; blocks: string; tps: string; span: string; ttft99: string; itl99: string; preempt: string; peak: string };
  verdict: (v: KvLimitVerdict, holds: boolean) => string;
}

export const KV_LIMIT_DEMO_EN: KvLimitDemoText = {
  ...GEN_DEMO_EN,
  blocks: 'KV blocks',
  policy: 'policy',
  table: { policy: 'policy', blocks: 'blocks', tps: 'tokens/s', span: 'total time', ttft99: 'TTFT p99', itl99: 'inter-token p99', preempt: 'preemptions', peak: 'peak blocks' },
  verdict: (v, holds) => holds
    ? `${v.big} -> ${v.small} blocks: ${v.tpsBig} -> ${v.tpsSmallNoEvict} tokens/s under guaranteed_no_evict (TTFT p99 ${v.ttftP99Big} -> ${v.ttftP99SmallNoEvict}, no preemption), ${v.tpsSmallMaxUtil} under max_utilization (${v.preemptSmallMaxUtil} preemptions, inter-token p99 ${v.itlP99Big} -> ${v.itlP99SmallMaxUtil}). Shown: ${v.tps} tokens/s, ${v.preemptions} preemptions.`
    : `${v.blocks} blocks, ${v.policy}: ${v.tps} tokens/s, ${v.preemptions} preemptions; ${v.big} blocks: ${v.tpsBig} tokens/s, ${v.small} blocks: ${v.tpsSmallNoEvict} (guaranteed_no_evict) and ${v.tpsSmallMaxUtil} (max_utilization, ${v.preemptSmallMaxUtil} preemptions). These runs do not show the KV budget limiting throughput.`,
};

export const KV_LIMIT_DEMO_ZH: KvLimitDemoText = {
  ...GEN_DEMO_ZH,
  blocks: 'KV 块数',
  policy: '策略',
  table: { policy: '策略', blocks: '块数', tps: '令牌/秒', span: '总时间', ttft99: '首令牌 p99', itl99: '令牌间隔 p99', preempt: '抢占次数', peak: '峰值块数' },
  verdict: (v, holds) => holds
    ? `${v.big} 块降到 ${v.small} 块：guaranteed_no_evict 每秒令牌数 ${v.tpsBig} 降到 ${v.tpsSmallNoEvict}（首令牌 p99 ${v.ttftP99Big} 升到 ${v.ttftP99SmallNoEvict}，没有抢占）；max_utilization 降到 ${v.tpsSmallMaxUtil}（抢占 ${v.preemptSmallMaxUtil} 次，令牌间隔 p99 ${v.itlP99Big} 升到 ${v.itlP99SmallMaxUtil}）。当前：每秒 ${v.tps} 个令牌，抢占 ${v.preemptions} 次。`
    : `${v.blocks} 块、${v.policy}：每秒 ${v.tps} 个令牌，抢占 ${v.preemptions} 次；${v.big} 块时每秒 ${v.tpsBig} 个，${v.small} 块时 ${v.tpsSmallNoEvict}（guaranteed_no_evict）和 ${v.tpsSmallMaxUtil}（max_utilization，抢占 ${v.preemptSmallMaxUtil} 次）。这几次运行没有显示出 KV 预算限制了吞吐量。`,
};
