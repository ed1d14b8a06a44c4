/** 生成式模型的界面文字：令牌时间线、KV 块图、生成视图。 */
import type { GENERATE_EN } from './generate-en';

export const GENERATE_ZH: typeof GENERATE_EN = {
  genTimelineTitle: '令牌时间线（每行一个批槽位，每格一步）',
  genKinds: { prefill: '预填充', decode: '解码', held: '占位（本步无计算）', preempted: '被抢占' },
  genSlot: (slot) => `#${slot}`,
  genSteps: (from, to) => `第 ${from}–${to} 步`,
  genNoSteps: '尚无步骤',
  genCellTip: (id, kind, from, to, tokens) => `${id}：${kind}，第 ${from === to ? from : `${from}–${to}`} 步${tokens > 0 ? `，${tokens} 个令牌` : ''}`,
  genKvTitle: 'KV 缓存块（每个方格一个块，颜色表示占用它的序列）',
  genKvUsage: (used, total, pct) => `已用 ${used} / ${total} 块（${pct}%）`,
  genKvTokens: (tokens, slots) => `${slots} 个令牌位中存有 ${tokens} 个令牌`,
  genKvReserved: (n) => `预留 ${n} 块`,
  genKvSequences: (n) => `${n} 个序列`,
  genKvBlockTip: (block, owner, tokens, blockTokens) => (owner === null ? `块 ${block}：空闲` : `块 ${block}：${owner}，${tokens}/${blockTokens} 个令牌`),
  genKvSeq: (blocks, tokens) => `${blocks} 块，${tokens} 令牌`,
  genMore: (n) => `另有 ${n} 个`,
  genStateTitle: '生成（迭代式模型：每一步重新组批，KV 缓存按块分配）',
  genWaiting: '尚无步骤：向它发送 generate_stream 请求',
  genSkipped: (n) => `有 ${n} 步太快来不及绘制，已跳过`,
  genCharts: { ttft: '首令牌时延', itl: '令牌间时延', tokens: '每秒输出令牌数', kv: '已用 KV 缓存块' },
  genAxis: { tokensPerS: '令牌/秒', blocks: '块' },
  genKvBudget: (n) => `预算 ${n} 块`,
};
