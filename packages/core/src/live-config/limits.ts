/**
 * The bounds of every field that changes while a model is loaded, in one table. Control validation refuses
 * a value outside them with these words, the model manager checks instance counts against them, and the
 * dashboard's inputs and sliders take their min, max and step from here, so a value the dashboard offers is
 * one the server accepts.
 *
 * Why bounds tighter than config.pbtxt's: Triton stores these as uint64/int32, and the config parser
 * accepts what the proto type allows (a file is the user's). A live change is a click or a script: a
 * delay of more than an hour or ten million queued requests is a typo, refused before it reaches the
 * scheduler.
 */
export interface LiveLimit {
  /** smallest accepted value (inclusive) */
  readonly min: number;
  /** largest accepted value (inclusive) */
  readonly max: number;
  /** the dashboard's input step */
  readonly step: number;
  /** the top of the dashboard's slider, where the slider is shorter than the accepted range */
  readonly sliderMax?: number;
}

/** one hour: longer delays or timeouts are certainly a typo */
const ONE_HOUR_US = 3_600_000_000;

export const LIVE_LIMITS = {
  max_queue_delay_microseconds: { min: 0, max: ONE_HOUR_US, step: 100, sliderMax: 100_000 },
  default_timeout_microseconds: { min: 0, max: ONE_HOUR_US, step: 1000 },
  max_batch_size: { min: 1, max: 1_000_000, step: 1 },
  preferred_batch_size: { min: 1, max: 1_000_000, step: 1 },
  /** how many preferred sizes a patch may list */
  preferred_batch_sizes: { min: 0, max: 64, step: 1 },
  // Triton reads priority_levels at load only; changing it live is ours, so is the bound. Every level is a
  // queue with its own policy and a row in snapshots: 1,000,000 levels made each snapshot 10 MiB and
  // inference 5x slower. 1,000 is far beyond real use (Triton's examples use 2-10).
  priority_levels: { min: 0, max: 1000, step: 1 },
  default_priority_level: { min: 0, max: 1000, step: 1 },
  max_queue_size: { min: 0, max: 10_000_000, step: 1 },
  instance_count: { min: 1, max: 64, step: 1 },
  // an iterative model's step knobs (TensorRT-LLM's parameters; iterative-knobs.ts): a step of more than
  // 4096 sequences or a million tokens, or a KV cache of more than 16M tokens, is a typo here
  max_num_sequences: { min: 1, max: 4096, step: 1, sliderMax: 64 },
  max_num_tokens: { min: 1, max: 1_048_576, step: 1, sliderMax: 4096 },
  max_tokens_in_paged_kv_cache: { min: 1, max: 16_777_216, step: 16, sliderMax: 16_384 },
} as const satisfies Record<string, LiveLimit>;

export type LiveLimitName = keyof typeof LIVE_LIMITS;

/** Whether `v` is an integer inside the named limit. */
export function withinLimit(name: LiveLimitName, v: unknown): v is number {
  const limit: LiveLimit = LIVE_LIMITS[name];
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= limit.min && v <= limit.max;
}

/** The words every refusal of an out-of-range value uses: `'count' must be between 1 and 64, got 0`. */
export function limitMessage(name: LiveLimitName, field: string, v: unknown): string {
  const limit: LiveLimit = LIVE_LIMITS[name];
  return `'${field}' must be between ${limit.min} and ${limit.max}, got ${JSON.stringify(v)}`;
}

/** The words refusing a list of preferred sizes longer than a patch may carry. */
export function sizesLengthMessage(field: string, length: number): string {
  return `'${field}' may list at most ${LIVE_LIMITS.preferred_batch_sizes.max} sizes, got ${length}`;
}

/**
 * The range of an input or slider over a live limit: the limit's min and step, and a top that a view
 * may shorten (a lesson's slider shows the few milliseconds that matter) but never lengthen past what
 * the server accepts. Without `top`: the limit's own slider top, else its max.
 */
export function sliderRange(name: LiveLimitName, top?: number): { min: number; max: number; step: number } {
  const limit: LiveLimit = LIVE_LIMITS[name];
  return { min: limit.min, max: Math.min(top ?? limit.sliderMax ?? limit.max, limit.max), step: limit.step };
}
