/**
 * The course's naive dynamic batcher, as a pure model next to Triton's rule (course-demo.ts runs both on
 * the same arrivals). Its policy: requests join a queue; only when the queue holds `maxBatch` requests is
 * the whole queue processed as one batch, taking `processUs` whatever its size; after the last arrival the
 * program waits `maxWaitUs` and flushes what is left. It has a max_wait, but never looks at it while
 * requests arrive: so a request that arrives just after a batch left waits for maxBatch - 1 more arrivals,
 * and with sparse traffic until the final flush. That is the gap `max_queue_delay_microseconds` closes.
 *
 * One difference from the course's script, so both batchers see the same traffic: there the arrivals are
 * produced by the same loop that sleeps while a batch runs, so processing delays them; here arrivals come
 * from independent clients (fixed times), and a batch that fills while the worker is busy starts when it is
 * free, taking the whole queue then.
 */
export interface NaiveBatcherOptions {
  maxBatch: number;
  processUs: number;
  /** the final flush happens this long after the last arrival */
  maxWaitUs: number;
}

export interface NaiveBatch {
  start_us: number;
  /** indexes into the arrivals */
  requests: number[];
  why: 'full' | 'flush';
}

export interface RequestTiming {
  arrive_us: number;
  start_us: number;
  done_us: number;
  /** start - arrive: how long it waited in the queue */
  wait_us: number;
}

export function runNaiveBatcher(arrivalsUs: readonly number[], o: NaiveBatcherOptions): { batches: NaiveBatch[]; requests: RequestTiming[] } {
  if (!(o.maxBatch >= 1) || !(o.processUs >= 0) || !(o.maxWaitUs >= 0)) throw new Error('naive batcher: maxBatch >= 1, processUs >= 0 and maxWaitUs >= 0');
  const batches: NaiveBatch[] = [];
  const requests: RequestTiming[] = arrivalsUs.map((t) => ({ arrive_us: t, start_us: NaN, done_us: NaN, wait_us: NaN }));
  let queue: number[] = [];
  let freeAt = 0;
  const run = (at: number, why: NaiveBatch['why']) => {
    const start = Math.max(at, freeAt);
    batches.push({ start_us: start, requests: queue, why });
    for (const i of queue) requests[i] = { arrive_us: arrivalsUs[i], start_us: start, done_us: start + o.processUs, wait_us: start - arrivalsUs[i] };
    freeAt = start + o.processUs;
    queue = [];
  };
  for (let i = 0; i < arrivalsUs.length; i++) {
    const t = arrivalsUs[i];
    // a queue that filled while the worker was busy ran when it became free (before this arrival)
    if (queue.length >= o.maxBatch && freeAt <= t) run(freeAt, 'full');
    queue.push(i);
    if (queue.length >= o.maxBatch && freeAt <= t) run(t, 'full');
  }
  if (queue.length > 0) {
    const last = arrivalsUs[arrivalsUs.length - 1];
    if (queue.length >= o.maxBatch) run(freeAt, 'full');
    else run(last + o.maxWaitUs, 'flush');
  }
  return { batches, requests };
}
