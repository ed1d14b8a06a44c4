/**
 * What the charts show of the autotuner: its decisions' hover text (the reason it gave: measured p99, rate,
 * batch, prediction) and the p99 target line of every selected version it tunes. The tuner's state comes
 * from the model's snapshot, the control acknowledgement and its own config.changed events (live-model.ts).
 */
import type { AutotuneChangeReason } from '@inferscope/core';
import { live } from '../store/app-store';
import type { Guide } from '../charts/time-chart';
import type { ModelLive } from '../store/live-types';
import { formatUs } from '../charts/format';
import { S } from '../strings';

/** A decision's reason as one line of hover text. */
export function autotuneTip(r: AutotuneChangeReason): string {
  const measured = r.measured_p99_us > 0 ? formatUs(r.measured_p99_us) : '–';
  const predicted = r.predicted_p99_us >= 0 ? formatUs(r.predicted_p99_us) : '–';
  return S.autotune.why(r.why, measured, r.rate_per_s, r.avg_batch, predicted);
}

/** The version's tuner when it is on. */
export function activeTuner(m: ModelLive | undefined): { target_us: number } | undefined {
  return m?.autotune?.enabled ? m.autotune : undefined;
}

/** One target line per distinct target among the selected versions that are autotuned. */
export function targetGuides(key: string, colour: string): Guide[] {
  const targets = new Set<number>();
  for (const m of live.models.values()) {
    const t = activeTuner(m);
    if (t && (key === 'all' || m.key === key)) targets.add(t.target_us);
  }
  return [...targets].sort((a, b) => a - b).map((v) => ({ v, label: S.autotune.targetLine(formatUs(v)), colour }));
}
