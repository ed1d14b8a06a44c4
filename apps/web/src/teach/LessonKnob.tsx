/**
 * The one control a lesson asks you to move, placed above the picture it changes (the delay slider over
 * the data flow, the instance buttons over the scheduler state), with the simulator's answer beside it.
 * It sends the same control messages as the side panel, so both stay in step.
 */
import { useState } from 'react';
import { live, useApp } from '../store/app-store';
import { sendControl } from '../live/control';
import { activeInstances, batchingOf, formatDelay } from '../store/config-paths';
import { S } from '../i18n/strings';
import { firstGroup } from '../controls/target';
import type { LessonKnob as Knob } from './lessons';
import { LIVE_LIMITS, sliderRange } from '@inferscope/core/live-config';

/** The lesson's delay slider spans the first 5 ms (where batching changes most) within the live limit. */
const DELAY = sliderRange('max_queue_delay_microseconds', 5000);
const INSTANCES = LIVE_LIMITS.instance_count;

export function LessonKnob(props: { knob: Exclude<Knob, 'course' | 'stream' | 'autotune' | 'seats' | 'accelerator'> }) {
  useApp((s) => s.structureRev);
  const [error, setError] = useState<string | null>(null);
  const m = [...live.models.values()][0];
  if (!m) return null;
  const b = batchingOf(m.config, activeInstances(m));
  const count = activeInstances(m);
  const send = async (msg: Parameters<typeof sendControl>[0]) => {
    const ack = await sendControl(msg);
    setError(ack.ok ? null : ack.error);
  };
  return (
    <div className="card lesson-knob p-2 mb-2 flex flex-wrap items-center gap-3" data-testid="lesson-knob" data-knob={props.knob}>
      {props.knob === 'delay' ? (
        <label className="flex items-center gap-3 w-full min-w-0">
          <span className="font-mono text-sm shrink-0">{S.maxQueueDelay}</span>
          <input type="range" className="flex-1 min-w-0" min={DELAY.min} max={DELAY.max} step={DELAY.step} value={Math.min(b.maxQueueDelayUs, DELAY.max)}
            onChange={(e) => void send({ action: 'setDynamicBatching', model: m.name, version: m.version, max_queue_delay_microseconds: Number(e.target.value) })}
            aria-valuetext={formatDelay(b.maxQueueDelayUs)} data-testid="knob-delay" />
          <b className="font-mono shrink-0 w-20 text-right" data-testid="knob-delay-value">{formatDelay(b.maxQueueDelayUs)}</b>
        </label>
      ) : (
        <span className="flex items-center gap-2">
          <span className="text-sm">{S.instanceCount}</span>
          <button type="button" className="btn" disabled={count <= INSTANCES.min} aria-label={S.instanceLess} data-testid="knob-minus"
            onClick={() => void send({ action: 'setInstanceCount', model: m.name, version: m.version, group: firstGroup(m), count: count - 1 })}>−</button>
          <b className="w-8 text-center" data-testid="knob-count">{count}</b>
          <button type="button" className="btn" disabled={count >= INSTANCES.max} aria-label={S.instanceMore} data-testid="knob-plus"
            onClick={() => void send({ action: 'setInstanceCount', model: m.name, version: m.version, group: firstGroup(m), count: count + 1 })}>+</button>
        </span>
      )}
      {error && <p className="text-danger text-sm w-full" role="alert" data-testid="knob-error">{error}</p>}
    </div>
  );
}
