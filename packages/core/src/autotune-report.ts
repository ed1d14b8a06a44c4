/**
 * The autotuner's reports as events and messages carry them: the reason of a change it made (in
 * `config.changed`), and its status as the user reads it (snapshot, statistics stream, HTTP statistics,
 * control acknowledgements). Plain data; events.ts re-exports them with the vocabulary they belong to.
 */
/** The autotuner's reason for a change (autotune/policy.ts computes it). */
export interface AutotuneChangeReason {
  why: string;
  target_us: number;
  measured_p99_us: number;
  rate_per_s: number;
  avg_batch: number;
  /** the p99 predicted at the new setting; absent when it lies beyond the queue model's reach (see `beyond`) */
  predicted_p99_us?: number;
  /** why no p99 is predicted (the instances would be saturated): shown instead of a number */
  beyond?: string;
  predicted_compute_us: number;
}

// The autotuner's status as the user reads it: autotune/status.ts computes it, snapshot, stats and HTTP carry it.

/** what keeps the target out of reach */
export type AutotuneLimit =
  /** the instances are busy: a longer delay batches no more, a shorter one queues more */
  | 'compute'
  /** one request alone takes about the target: no batching setting can help */
  | 'latency'
  /** the instance is mostly idle yet answers are slow (the host's interruptions, its spread) */
  | 'host';

/** A change of preferred sizes the tuner proposes: shown for one dwell period before it is made (README: autotuning). */
export interface AutotuneProposal {
  preferred_batch_size: number[];
  why: string;
  /** instance time a request, µs: with the sizes as they are, and as proposed (predicted) */
  compute_now_us: number;
  compute_proposed_us: number;
}

/** The configuration the tuner found, and put back when switched off. */
export interface AutotuneOrigin {
  max_queue_delay_microseconds: number;
  preferred_batch_size: number[];
}

export type AutotuneStatus =
  /** too few answers at the setting held to judge it yet */
  | { state: 'measuring'; target_us: number; delay_us: number; proposal?: AutotuneProposal }
  /** the measured p99 (pooled over the setting's answers) is within the target */
  | { state: 'met'; target_us: number; delay_us: number; p99_us: number; proposal?: AutotuneProposal }
  /** a change was made (or refused) and the tuner waits for its measurement before the next */
  | { state: 'holding'; target_us: number; delay_us: number; p99_us?: number; why: string; proposal?: AutotuneProposal }
  /** out of reach: the cheapest setting that came closest is held and nothing changes until the traffic does */
  | { state: 'not_met'; target_us: number; delay_us: number; best_p99_us: number; limit: AutotuneLimit; advice: string; proposal?: AutotuneProposal }
  /** switched off: what it put back */
  | { state: 'restored'; target_us: number; restored: AutotuneOrigin & { instances_removed: number }; text: string }
  /** switched off with nothing to put back (it had changed nothing) */
  | { state: 'off'; target_us: number };

/**
 * What every report of a version's tuner carries (snapshot, statistics stream, HTTP statistics, control
 * acknowledgement): on or off, the target, the last decision's reason, the status and its line.
 */
export interface AutotuneReport {
  enabled: boolean;
  target_us: number;
  last?: AutotuneChangeReason;
  status: AutotuneStatus;
  /** describeAutotune(status): the same words wherever it is shown */
  text: string;
}
