/** 有状态模型槽位的界面文字（状态视图与架构视图）。 */
import type { SEQUENCE_EN } from './sequence-en';

export const SEQUENCE_ZH: typeof SEQUENCE_EN = {
  seqSlotsTitle: '序列槽位（有状态模型：哪段对话占着哪个座位）',
  seqFree: '空闲',
  seqBacklog: '等待队列',
  seqBacklogEmpty: '没有序列在等待',
  seqStrategy: (s) => `策略：${s}`,
  seqStateMemory: (sequences, bytes) => `隐式状态：${sequences} 个序列，${bytes}`,
  seqWaiting: (requests) => `${requests} 个请求`,
  seqMore: (n) => `另有 ${n} 个`,
};
