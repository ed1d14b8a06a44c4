/**
 * The delay slider's scale: logarithmic, because the delays that matter span four decades (0.1 ms decides
 * a CPU MLP, 20 ms a GPU LLM). On a linear 0-100 ms track 0-5 ms was the first 5%. Position 0 is delay 0
 * (Triton's "send what is there"); the rest of the track runs from LOWEST_US to the limit table's
 * sliderMax, each value rounded to two significant digits so the slider lands on round numbers.
 */
import { LIVE_LIMITS } from '@inferscope/core/live-config';

const DELAY = LIVE_LIMITS.max_queue_delay_microseconds;
export const DELAY_TRACK = 1000;
const LOWEST_US = 50;
const HIGHEST_US = DELAY.sliderMax ?? DELAY.max;
const span = Math.log10(HIGHEST_US / LOWEST_US);

function twoDigits(v: number): number {
  const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(v)) - 1);
  return Math.round(v / magnitude) * magnitude;
}

/** Track position (0..DELAY_TRACK) -> delay in µs. */
export function delayAt(position: number): number {
  if (position <= 0) return 0;
  const p = Math.min(DELAY_TRACK, position);
  return Math.min(HIGHEST_US, twoDigits(LOWEST_US * 10 ** (((p - 1) / (DELAY_TRACK - 1)) * span)));
}

/** Delay in µs -> the nearest track position (a delay past the track's end sits at its end). */
export function positionOf(delayUs: number): number {
  if (delayUs <= 0) return 0;
  if (delayUs <= LOWEST_US) return 1;
  const p = 1 + (Math.log10(Math.min(delayUs, HIGHEST_US) / LOWEST_US) / span) * (DELAY_TRACK - 1);
  return Math.round(p);
}
