/** The dashboard's words for a generative model: the token timeline, the KV block map, the generation view. */
export const GENERATE_EN = {
  genTimelineTitle: 'Token timeline (one row per batch slot, one cell per step)',
  genKinds: { prefill: 'prefill', decode: 'decode', held: 'held (no work this step)', preempted: 'preempted' },
  genSlot: (slot: number) => `#${slot}`,
  genSteps: (from: number, to: number) => `steps ${from}–${to}`,
  genNoSteps: 'no step yet',
  genCellTip: (id: string, kind: string, from: number, to: number, tokens: number) =>
    `${id}: ${kind}, step${from === to ? ` ${from}` : `s ${from}–${to}`}${tokens > 0 ? `, ${tokens} token${tokens === 1 ? '' : 's'}` : ''}`,
  genKvTitle: 'KV cache blocks (each square a block, coloured by the sequence that owns it)',
  genKvUsage: (used: number, total: number, pct: number) => `${used} / ${total} blocks used (${pct}%)`,
  genKvTokens: (tokens: number, slots: number) => `${tokens} tokens in ${slots} token slots`,
  genKvReserved: (n: number) => `${n} reserved`,
  genKvSequences: (n: number) => `${n} sequence${n === 1 ? '' : 's'}`,
  genKvBlockTip: (block: number, owner: string | null, tokens: number, blockTokens: number) =>
    owner === null ? `block ${block}: free` : `block ${block}: ${owner}, ${tokens}/${blockTokens} tokens`,
  genKvSeq: (blocks: number, tokens: number) => `${blocks} blk, ${tokens} tok`,
  genMore: (n: number) => `+${n} more`,
  genStateTitle: 'Generation (iterative models: the batch re-formed at every step, the KV cache block by block)',
  genWaiting: 'no step yet: send it generate_stream traffic',
  genSkipped: (n: number) => `${n} steps too fast to draw were skipped`,
  genCharts: { ttft: 'Time to first token', itl: 'Inter-token latency', tokens: 'Output tokens/s', kv: 'KV cache blocks used' },
  genAxis: { tokensPerS: 'tokens/s', blocks: 'blocks' },
  genKvBudget: (n: number) => `budget ${n} blocks`,
};
