/**
 * An independent model of Triton's dynamic batcher, for tests only: written in the shape of Triton's own
 * threads (learned from dynamic_batch_scheduler.cc, instance_queue.cc, payload.cc, rate_limiter.cc), not
 * from InferScope's scheduler, so a test can compare the two on the same traffic. One batcher thread with a
 * current payload and a `saturated` flag, the rate limiter's payload queue (a slot: below twice the
 * instance count with prefetch, else an instance waiting), instance threads that dequeue the oldest payload
 * and merge the ones that waited past the delay. The batcher reacts at once to every event; arrivals at
 * distinct times (the caller's duty), no shapes, one priority level, no timeouts.
 */
import type { Arrival } from './trace-runner.ts';

export interface ModelConfig {
  maxBatch: number;
  /** as configured; Triton fills in [maxBatch] when empty */
  preferred: number[];
  delayUs: number;
  /** Triton's SupportPrefetching (no priority levels, timeouts or max_queue_size) */
  prefetch: boolean;
  instances: number;
  costUs: (samples: number) => number;
}

interface Req {
  id: string;
  bs: number;
  t: number;
}
interface Payload {
  reqs: Req[];
  size: number;
  /** oldest request's queue time (BatcherStartNs) */
  start: number;
  /** dequeued or examined by an instance (Triton's EXECUTING state) */
  executing: boolean;
}

export interface ModelBatch {
  ids: string[];
  startUs: number;
}

export function runTritonModel(c: ModelConfig, trace: readonly Arrival[]): ModelBatch[] {
  const preferred = new Set(c.preferred.length > 0 ? c.preferred : [c.maxBatch]);
  const maxPreferred = Math.max(...preferred);
  const queue: Req[] = [];
  const payloads: Payload[] = [];
  const freeAt: number[] = Array.from({ length: c.instances }, () => -Infinity);
  const out: ModelBatch[] = [];
  let current: Payload | null = null;
  let saturated = false;
  let wakeAt = Infinity;
  let now = 0;

  const idle = () => freeAt.findIndex((t) => t <= now && t !== Infinity);
  // instance threads: a waiting instance dequeues the oldest payload and merges what waited past the delay
  const dispatch = () => {
    for (let i = idle(); i >= 0 && payloads.length > 0; i = idle()) {
      const p = payloads.shift()!;
      p.executing = true;
      while (c.delayUs > 0 && c.maxBatch > 1 && payloads.length > 0 && now - payloads[0].start > c.delayUs) {
        const next = payloads[0];
        next.executing = true;
        if (p.size + next.size > c.maxBatch) break;
        payloads.shift();
        p.reqs.push(...next.reqs);
        p.size += next.size;
      }
      out.push({ ids: p.reqs.map((r) => r.id), startUs: now });
      freeAt[i] = now + c.costUs(p.size);
    }
  };

  /** GetDynamicBatch: how many queued requests join the current payload now, or a wake-up time */
  const getDynamicBatch = (): { take: number; wait: number } => {
    const base = current ? current.size : 0;
    let pending = 0;
    let count = 0;
    let best = 0;
    let bestCount = 0;
    let sendNow = false;
    let oldest = Infinity;
    for (const r of queue) {
      if (base + count > 0) {
        if (base + pending + r.bs > maxPreferred && best === 0) {
          best = pending;
          bestCount = count;
          saturated = true;
        }
        if (base + pending + r.bs > c.maxBatch) {
          sendNow = true;
          break;
        }
      }
      pending += r.bs;
      count++;
      oldest = Math.min(oldest, r.t);
      if (preferred.has(base + pending)) {
        best = pending;
        bestCount = count;
      }
    }
    const exceeded = c.delayUs !== 0 && now >= oldest + c.delayUs;
    if (best !== 0 && !exceeded) {
      if (c.delayUs === 0) saturated = true;
      return { take: bestCount, wait: 0 };
    }
    if (count === 0) return { take: 0, wait: 0 };
    if (sendNow || base + pending >= maxPreferred) {
      saturated = true;
      return { take: count, wait: 0 };
    }
    if (exceeded || c.delayUs === 0) return { take: count, wait: 0 };
    if (!saturated && base !== 0 && !preferred.has(base)) return { take: count, wait: 0 };
    return { take: 0, wait: oldest + c.delayUs };
  };

  // the batcher thread's loop, run until it would block
  const batcher = () => {
    wakeAt = Infinity;
    for (;;) {
      if (current && (saturated || current.executing)) {
        current = null;
        saturated = false;
      }
      if (queue.length === 0) return;
      const slot = c.prefetch ? payloads.length < 2 * c.instances : idle() >= 0;
      if (!slot) return; // woken when an instance dequeues
      const { take, wait } = getDynamicBatch();
      if (take > 0) {
        if (!current) {
          current = { reqs: [], size: 0, start: Infinity, executing: false };
          payloads.push(current);
        }
        for (const r of queue.splice(0, take)) {
          current.reqs.push(r);
          current.size += r.bs;
          current.start = Math.min(current.start, r.t);
        }
        dispatch();
        continue;
      }
      if (wait > 0) wakeAt = wait;
      else if (saturated) continue; // nothing fits the saturated payload: its loop goes round to a new one
      return;
    }
  };

  let next = 0;
  for (;;) {
    const arrival = next < trace.length ? trace[next][2] : Infinity;
    const free = Math.min(...freeAt.filter((t) => t > now));
    now = Math.min(arrival, free, wakeAt);
    if (now === Infinity) break;
    if (now === arrival) {
      const [id, bs, t] = trace[next++];
      queue.push({ id, bs, t });
    }
    dispatch();
    batcher();
  }
  return out;
}
