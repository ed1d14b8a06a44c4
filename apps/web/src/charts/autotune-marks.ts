/**
 * What the charts show of the autotuner: its decisions' hover text (the reason it gave: measured p99, rate,
 * batch, prediction) and the p99 target line of every selected version it tunes. The tuner's state comes
 * from the model's snapshot, the control acknowledgement and its own config.changed events (live-model.ts).
 */
import type { AutotuneChangeReason } from '@inferscope/core';
import type { AutotuneReport } from '@inferscope/core/autotune';
import { live } from '../store/app-store';
import type { Guide } from './time-chart';
import type { ModelLive } from '../store/live-types';
import { formatUs } from './format';
import { S } from '../i18n/strings';
import { autotuneText } from '../i18n/server-text';

/** A decision's reason as one line of hover text. A prediction beyond the queue model says why, never a number. */
export function autotuneTip(r: AutotuneChangeReason): string {
  const measured = r.measured_p99_us > 0 ? formatUs(r.measured_p99_us) : '–';
  const predicted = r.predicted_p99_us !== undefined && r.predicted_p99_us > 0 ? formatUs(r.predicted_p99_us) : r.beyond !== undefined ? autotuneText(r.beyond) : '–';
  return S.autotune.why(autotuneText(r.why), measured, r.rate_per_s, r.avg_batch, predicted);
}

/**
 * The tuner's status as the panel, the architecture view and the config drawer say it: met, not met with
 * the best p99 and what limits it, holding, restored (core computes it; this only words it).
 */
export function autotuneStatusLine(a: AutotuneReport | undefined): string {
  if (!a) return S.autotune.off;
  const s = a.status;
  const proposal = 'proposal' in s && s.proposal ? ` · ${S.autotune.proposal(autotuneText(s.proposal.why))}` : '';
  switch (s.state) {
    case 'measuring': return S.autotune.measuring(formatUs(s.target_us), formatUs(s.delay_us)) + proposal;
    case 'met': return S.autotune.met(formatUs(s.target_us), formatUs(s.p99_us), formatUs(s.delay_us)) + proposal;
    case 'holding': return S.autotune.holding(formatUs(s.target_us), formatUs(s.delay_us), autotuneText(s.why)) + proposal;
    case 'not_met': return S.autotune.notMet(formatUs(s.target_us), formatUs(s.best_p99_us), s.advice, s.limit) + proposal;
    case 'restored': return S.autotune.restored(s.text, formatUs(s.restored.max_queue_delay_microseconds), s.restored.preferred_batch_size.join(','), s.restored.instances_removed);
    case 'off': return S.autotune.offNothing;
  }
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
