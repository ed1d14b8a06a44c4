/**
 * A paged KV-cache allocator: the cache is a fixed budget of blocks of `blockTokens` tokens each, and a
 * sequence holds a block table (the blocks its tokens live in, in order), grown one block at a time as
 * the sequence grows, as vLLM's block manager and TensorRT-LLM's KV cache manager do. Paging means a
 * sequence wastes at most one partly filled block, instead of a contiguous slab sized for its maximum.
 *
 * Two admission policies, by TensorRT-LLM's names:
 * - `guaranteed_no_evict`: a sequence is admitted only if its maximum (prompt + every token it may
 *   generate) fits beside every other admitted sequence's maximum. Its blocks are still drawn as it
 *   grows, but the rest of its maximum is *reserved*: no later admission may take them, so growth never
 *   fails and nothing is ever evicted. Safe, at the cost of idle reserved memory.
 * - `max_utilization`: a sequence is admitted when its prompt fits now; blocks are drawn as it grows.
 *   When a sequence must grow and no block is free, the most recently admitted sequence is preempted
 *   (all its blocks freed; the scheduler recomputes it later from its tokens), as vLLM's recompute
 *   preemption and TensorRT-LLM's request pausing do: the newest has the least work to lose.
 *
 * Pure bookkeeping (no tensors, no clock): the scheduler asks, the allocator answers, a snapshot draws
 * the block map. Misuse by the caller (an unknown id, growing past the declared maximum, admitting what
 * canAdmit refused) throws: those are scheduler bugs, never a user's input.
 */
import { kvBlocksFor, kvBudgetProblem } from './kv-budget';

export type KvAdmissionPolicy = 'guaranteed_no_evict' | 'max_utilization';
export const KV_ADMISSION_POLICIES: readonly KvAdmissionPolicy[] = ['guaranteed_no_evict', 'max_utilization'];

export interface KvBlockAllocatorOptions {
  /** the budget: how many blocks exist */
  totalBlocks: number;
  /** tokens per block */
  blockTokens: number;
  policy: KvAdmissionPolicy;
}

/** vLLM's AllocStatus: admit now, wait for blocks to free up, or never (larger than the whole budget). */
export type KvAdmitDecision =
  | { kind: 'admit'; blocks: number }
  | { kind: 'wait'; neededBlocks: number; availableBlocks: number }
  | { kind: 'never'; reason: string };

/** A sequence preempted to make room: its blocks are free; the scheduler recomputes its `tokens` later. */
export interface KvPreempted {
  id: string;
  tokens: number;
}

export type KvGrowResult =
  /** grown; `newBlocks` were appended to its table; `preempted` made room (newest first) */
  | { grown: true; newBlocks: number[]; preempted: KvPreempted[] }
  /** it was itself the newest sequence left, so it was preempted (last in `preempted`) */
  | { grown: false; preempted: KvPreempted[] };

export interface KvSequenceView {
  id: string;
  tokens: number;
  maxTokens: number;
  /** its block table, in token order */
  blocks: number[];
  /** blocks promised to it but not drawn yet (guaranteed_no_evict only) */
  reservedBlocks: number;
}

export interface KvUsage {
  totalBlocks: number;
  usedBlocks: number;
  freeBlocks: number;
  /** free blocks promised to admitted sequences (guaranteed_no_evict): not available to admissions */
  reservedBlocks: number;
  sequences: number;
  /** tokens stored, and the tokens the held blocks could store (the gap is the partly filled last blocks) */
  usedTokens: number;
  heldTokenSlots: number;
}

/** The block map for drawing: each block's owner (null = free) and how many of its slots hold tokens. */
export interface KvBlockMap {
  policy: KvAdmissionPolicy;
  blockTokens: number;
  blocks: { owner: string | null; tokens: number }[];
  /** in admission order, oldest first */
  sequences: KvSequenceView[];
  usage: KvUsage;
}

/** A block map without its per-block list, which its sequences' block tables and lengths determine. */
export type KvBlockTables = Omit<KvBlockMap, 'blocks'>;

/** The block map its sequences' block tables give: each block's owner and how many of its slots hold tokens. */
export function blockMapOf(t: KvBlockTables): KvBlockMap {
  const blocks = Array.from({ length: t.usage.totalBlocks }, () => ({ owner: null as string | null, tokens: 0 }));
  for (const s of t.sequences) {
    s.blocks.forEach((b, i) => {
      blocks[b] = { owner: s.id, tokens: Math.min(t.blockTokens, s.tokens - i * t.blockTokens) };
    });
  }
  return { ...t, blocks };
}

interface Sequence {
  id: string;
  tokens: number;
  maxTokens: number;
  blocks: number[];
  /** blocks it may hold at most without asking (its maximum under guaranteed_no_evict, else 0) */
  reserved: number;
  /** admission order: larger = admitted more recently */
  order: number;
}

export class KvBlockAllocator {
  readonly totalBlocks: number;
  readonly blockTokens: number;
  readonly policy: KvAdmissionPolicy;
  /** free block ids; popped from the end, so a fresh allocator hands out 0, 1, 2, ... */
  private readonly free: number[] = [];
  private readonly sequences = new Map<string, Sequence>();
  private admissions = 0;
  /** sum over sequences of (reserved - held), kept so canAdmit is O(1) */
  private outstanding = 0;

  constructor(o: KvBlockAllocatorOptions) {
    for (const [name, v] of [['totalBlocks', o.totalBlocks], ['blockTokens', o.blockTokens]] as const) {
      if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`KV cache ${name} must be a positive integer, got ${v}`);
    }
    if (!KV_ADMISSION_POLICIES.includes(o.policy)) {
      throw new RangeError(`KV cache policy must be one of ${KV_ADMISSION_POLICIES.join(', ')}, got ${String(o.policy)}`);
    }
    this.totalBlocks = o.totalBlocks;
    this.blockTokens = o.blockTokens;
    this.policy = o.policy;
    for (let b = o.totalBlocks - 1; b >= 0; b--) this.free.push(b);
  }

  /** Whether a sequence of `promptTokens` that may grow to `maxTokens` can be admitted now. */
  canAdmit(promptTokens: number, maxTokens: number): KvAdmitDecision {
    checkTokens(promptTokens, maxTokens);
    const reason = kvBudgetProblem({ totalBlocks: this.totalBlocks, blockTokens: this.blockTokens, maxSequenceTokens: maxTokens });
    if (reason) return { kind: 'never', reason };
    const blocks = kvBlocksFor(this.policy === 'guaranteed_no_evict' ? maxTokens : promptTokens, this.blockTokens);
    const available = this.free.length - this.outstanding;
    return blocks <= available ? { kind: 'admit', blocks } : { kind: 'wait', neededBlocks: blocks, availableBlocks: available };
  }

  /** Admits a sequence and draws the blocks of its prompt; returns its block table. */
  admit(id: string, promptTokens: number, maxTokens: number): number[] {
    if (this.sequences.has(id)) throw new Error(`KV cache: sequence ${id} is already admitted`);
    const d = this.canAdmit(promptTokens, maxTokens);
    if (d.kind !== 'admit') throw new Error(`KV cache: sequence ${id} cannot be admitted (${d.kind === 'never' ? d.reason : `needs ${d.neededBlocks} blocks, ${d.availableBlocks} available`})`);
    const reserved = this.policy === 'guaranteed_no_evict' ? d.blocks : 0;
    const s: Sequence = { id, tokens: 0, maxTokens, blocks: [], reserved, order: this.admissions++ };
    this.sequences.set(id, s);
    this.outstanding += reserved;
    this.draw(s, promptTokens);
    return [...s.blocks];
  }

  /**
   * Adds `tokens` (default 1: one decode step) to a sequence, drawing blocks as it crosses a block
   * boundary. Under max_utilization, when no block is free, the most recently admitted sequences are
   * preempted until one is; if that reaches this sequence itself, it is preempted and not grown.
   */
  grow(id: string, tokens = 1): KvGrowResult {
    const s = this.get(id);
    if (!Number.isSafeInteger(tokens) || tokens < 0) throw new RangeError(`KV cache: cannot grow by ${tokens} tokens`);
    if (s.tokens + tokens > s.maxTokens) {
      throw new RangeError(`KV cache: sequence ${id} would hold ${s.tokens + tokens} tokens, over its maximum of ${s.maxTokens}`);
    }
    const need = kvBlocksFor(s.tokens + tokens, this.blockTokens) - s.blocks.length;
    const preempted: KvPreempted[] = [];
    // Reserved blocks (guaranteed_no_evict) are always free, so this loop runs only under max_utilization.
    while (this.free.length - this.outstanding + Math.min(need, unclaimed(s)) < need) {
      const victim = this.newest();
      preempted.push({ id: victim.id, tokens: victim.tokens });
      this.release(victim.id);
      if (victim === s) return { grown: false, preempted };
    }
    const before = s.blocks.length;
    this.draw(s, tokens);
    return { grown: true, newBlocks: s.blocks.slice(before), preempted };
  }

  /** Frees a sequence's blocks and whatever it still had reserved (it finished, or is preempted). */
  release(id: string): number {
    const s = this.get(id);
    this.outstanding -= unclaimed(s);
    for (let i = s.blocks.length - 1; i >= 0; i--) this.free.push(s.blocks[i]);
    this.sequences.delete(id);
    return s.blocks.length;
  }

  has(id: string): boolean {
    return this.sequences.has(id);
  }

  sequence(id: string): KvSequenceView {
    return view(this.get(id));
  }

  usage(): KvUsage {
    let usedTokens = 0;
    for (const s of this.sequences.values()) usedTokens += s.tokens;
    const usedBlocks = this.totalBlocks - this.free.length;
    return {
      totalBlocks: this.totalBlocks,
      usedBlocks,
      freeBlocks: this.free.length,
      reservedBlocks: this.outstanding,
      sequences: this.sequences.size,
      usedTokens,
      heldTokenSlots: usedBlocks * this.blockTokens,
    };
  }

  snapshot(): KvBlockMap {
    return blockMapOf(this.tables());
  }

  /** The block map without its per-block list (cheaper to copy; blockMapOf derives the list). */
  tables(): KvBlockTables {
    const sequences = [...this.sequences.values()].sort((a, b) => a.order - b.order);
    return { policy: this.policy, blockTokens: this.blockTokens, sequences: sequences.map(view), usage: this.usage() };
  }

  /** Appends `tokens` to s, drawing the blocks it crosses into (the caller made sure they are free). */
  private draw(s: Sequence, tokens: number): void {
    const need = kvBlocksFor(s.tokens + tokens, this.blockTokens) - s.blocks.length;
    for (let i = 0; i < need; i++) {
      const b = this.free.pop();
      if (b === undefined) throw new Error('KV cache: out of blocks (accounting error)');
      s.blocks.push(b);
      if (s.blocks.length <= s.reserved) this.outstanding--;
    }
    s.tokens += tokens;
  }

  private newest(): Sequence {
    let newest: Sequence | undefined;
    for (const s of this.sequences.values()) if (!newest || s.order > newest.order) newest = s;
    return newest!;
  }

  private get(id: string): Sequence {
    const s = this.sequences.get(id);
    if (!s) throw new Error(`KV cache: no sequence ${id}`);
    return s;
  }
}

function checkTokens(promptTokens: number, maxTokens: number): void {
  if (!Number.isSafeInteger(promptTokens) || promptTokens < 1) throw new RangeError(`KV cache: a prompt needs at least 1 token, got ${promptTokens}`);
  if (!Number.isSafeInteger(maxTokens) || maxTokens < promptTokens) {
    throw new RangeError(`KV cache: maximum tokens (${maxTokens}) must be an integer no smaller than the prompt (${promptTokens})`);
  }
}

function view(s: Sequence): KvSequenceView {
  return { id: s.id, tokens: s.tokens, maxTokens: s.maxTokens, blocks: [...s.blocks], reservedBlocks: unclaimed(s) };
}

/** Blocks reserved for s and not drawn yet. */
function unclaimed(s: Sequence): number {
  return Math.max(0, s.reserved - s.blocks.length);
}
