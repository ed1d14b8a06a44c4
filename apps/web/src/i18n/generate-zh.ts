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
};
