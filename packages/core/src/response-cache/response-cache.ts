/**
 * The response cache: one LRU buffer of `capacity` bytes shared by every model (Triton's local cache).
 *
 * - An entry costs its encoded key (kept whole so a hit is confirmed byte for byte, see key.ts), the
 *   response's bytes and ENTRY_OVERHEAD_BYTES, so that the size bounds what the process really holds; an
 *   entry larger than the whole cache is refused, not inserted (Triton: "Requested byte_size ... is
 *   greater than total cache size").
 * - Inserting evicts least recently used entries until the new one fits; a lookup hit makes an entry the
 *   most recently used. Insertion order of a Set is the LRU order: delete + add moves to the back.
 * - A key already present is not replaced ('exists'): two identical requests that both missed and both ran
 *   insert twice, and Triton keeps the first and counts the second as neither hit nor model miss.
 * - An error is never stored: insert takes an answer, and a failed one is refused ('error').
 */
import { keyHash } from './hash';
import { sameBytes } from './key';

/**
 * What an entry holds beyond its key's and response's bytes: its record, its LRU and bucket slots, the
 * typed arrays' and tensors' objects. Measured (test/cache/unique-inputs-memory.test.ts): about 700 bytes
 * an entry whatever its size, so a cache of small entries would hold several times its size without it.
 */
export const ENTRY_OVERHEAD_BYTES = 768;

export type CacheAnswer<V> = { ok: true; value: V; bytes: number } | { ok: false };

export type InsertOutcome = 'inserted' | 'exists' | 'too_large' | 'error';

export type CacheLookup<V> = { hit: true; value: V; us: number } | { hit: false; us: number };

export interface ResponseCacheStats {
  capacity: number;
  bytes: number;
  entries: number;
  lookups: number;
  hits: number;
  misses: number;
  evictions: number;
  inserts: number;
  /** total µs spent in lookups and in inserts (Triton's nv_cache_lookup_duration, nv_cache_insertion_duration) */
  lookupUs: number;
  insertUs: number;
  /** bytes / capacity, 0..1 (nv_cache_util) */
  utilization: number;
}

interface Entry<V> {
  readonly hash: string;
  readonly key: Uint8Array;
  readonly value: V;
  readonly bytes: number;
}

export interface ResponseCacheOptions {
  /** µs clock for the durations (the scheduler's Clock.now); without it durations read 0 */
  now?: () => number;
  /** the bucket hash (tests force collisions with a constant one) */
  hash?: (key: Uint8Array) => string;
}

/**
 * Triton counts a request as a model's cache miss when its response was inserted or could not be (too large),
 * not when an identical request in flight inserted first, and a failed request is no cache statistic at all.
 */
export function countsAsModelMiss(outcome: InsertOutcome): boolean {
  return outcome === 'inserted' || outcome === 'too_large';
}

export class ResponseCache<V> {
  private readonly buckets = new Map<string, Entry<V>[]>();
  /** every entry, least recently used first */
  private readonly lru = new Set<Entry<V>>();
  private used = 0;
  private readonly counts = { lookups: 0, hits: 0, misses: 0, evictions: 0, inserts: 0, lookupUs: 0, insertUs: 0 };
  private readonly now: () => number;
  private readonly hash: (key: Uint8Array) => string;

  constructor(readonly capacity: number, opts: ResponseCacheOptions = {}) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`cache capacity must be a whole number of bytes >= 0, got ${capacity}`);
    this.now = opts.now ?? (() => 0);
    this.hash = opts.hash ?? keyHash;
  }

  lookup(key: Uint8Array): CacheLookup<V> {
    const start = this.now();
    const entry = this.find(this.hash(key), key);
    this.counts.lookups++;
    if (entry) {
      this.counts.hits++;
      this.lru.delete(entry);
      this.lru.add(entry);
    } else {
      this.counts.misses++;
    }
    const us = Math.max(0, this.now() - start);
    this.counts.lookupUs += us;
    return entry ? { hit: true, value: entry.value, us } : { hit: false, us };
  }

  insert(key: Uint8Array, answer: CacheAnswer<V>): { outcome: InsertOutcome; us: number } {
    const start = this.now();
    const outcome = this.place(key, answer);
    const us = Math.max(0, this.now() - start);
    this.counts.insertUs += us;
    return { outcome, us };
  }

  /** what an entry of this key and response costs against the capacity */
  entryBytes(key: Uint8Array, responseBytes: number): number {
    return key.length + responseBytes + ENTRY_OVERHEAD_BYTES;
  }

  /** entries' values, least recently used first (what eviction would take first) */
  valuesLruFirst(): V[] {
    return [...this.lru].map((e) => e.value);
  }

  stats(): ResponseCacheStats {
    return {
      ...this.counts,
      capacity: this.capacity,
      bytes: this.used,
      entries: this.lru.size,
      utilization: this.capacity === 0 ? 0 : this.used / this.capacity,
    };
  }

  private place(key: Uint8Array, answer: CacheAnswer<V>): InsertOutcome {
    if (!answer.ok) return 'error';
    const hash = this.hash(key);
    if (this.find(hash, key)) return 'exists';
    const bytes = this.entryBytes(key, answer.bytes);
    if (bytes > this.capacity) return 'too_large';
    while (this.used + bytes > this.capacity) this.evictOldest();
    const entry: Entry<V> = { hash, key, value: answer.value, bytes };
    const bucket = this.buckets.get(hash);
    if (bucket) bucket.push(entry);
    else this.buckets.set(hash, [entry]);
    this.lru.add(entry);
    this.used += bytes;
    this.counts.inserts++;
    return 'inserted';
  }

  private find(hash: string, key: Uint8Array): Entry<V> | undefined {
    return this.buckets.get(hash)?.find((e) => sameBytes(e.key, key));
  }

  private evictOldest(): void {
    const oldest = this.lru.values().next().value as Entry<V>;
    this.lru.delete(oldest);
    const bucket = this.buckets.get(oldest.hash)!;
    if (bucket.length === 1) this.buckets.delete(oldest.hash);
    else bucket.splice(bucket.indexOf(oldest), 1);
    this.used -= oldest.bytes;
    this.counts.evictions++;
  }
}
