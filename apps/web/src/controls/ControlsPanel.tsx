/**
 * Live controls: max_queue_delay, preferred and max batch size, instance count, the autotuner (an iterative
 * model: its continuous-batching knobs instead, IterativeControls.tsx), each sent as a `control`
 * message; the server's answer (applied, or refused with its reason) is listed below. Viewers without the
 * control token see the values but cannot change them. Save shows the diff (dry run) before writing.
 */
import { useEffect, useRef, useState } from 'react';
import { appStore, live, useApp } from '../store/app-store';
import type { ControlAck } from '@inferscope/core';
import { sendControl } from '../live/control';
import { batchingOf, activeInstances, formatDelay } from '../store/config-paths';
import { controlTarget, firstGroup, parseSizes } from './target';
import { DELAY_TRACK, delayAt, positionOf } from './delay-scale';
import { versionLabel } from '../store/select';
import { LIVE_LIMITS } from '@inferscope/core/live-config';
import { S } from '../i18n/strings';
import { AckLog } from './AckLog';
import { SaveConfig } from './SaveConfig';
import { AutotuneControl } from './AutotuneControl';
import { CacheLimiterControls } from './CacheLimiterControls';
import { IterativeControls } from './IterativeControls';
import { schedulerKindFor } from '@inferscope/core/scheduler';

// Bounds from the live-config limits table: what the inputs offer is what the server accepts.
const DELAY = LIVE_LIMITS.max_queue_delay_microseconds;
const MAX_BATCH = LIVE_LIMITS.max_batch_size;
const INSTANCES = LIVE_LIMITS.instance_count;

/** A refused change leaves the server as it was: put the field back to the live value (the reason is in the log). */
const revert = (reset: () => void) => (ack: ControlAck) => {
  if (!ack.ok) reset();
};

export function ControlsPanel(props: { canControl: boolean }) {
  useApp((s) => s.structureRev);
  const pick = useApp((s) => s.model);
  const mode = useApp((s) => s.mode);
  const override = useApp((s) => s.target);
  const m = controlTarget(pick, override);
  const b = m ? batchingOf(m.config, activeInstances(m)) : undefined;
  const [delay, setDelay] = useState(0);
  const [preferred, setPreferred] = useState('');
  const [maxBatch, setMaxBatch] = useState(0);
  const [localError, setLocalError] = useState<string | undefined>();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const disabled = !props.canControl || !m;

  // Follow the server's values when they change (someone else moved them, or a change was applied).
  useEffect(() => {
    if (!b) return;
    setDelay(b.maxQueueDelayUs);
    setPreferred(b.preferred.join(', '));
    setMaxBatch(b.maxBatchSize);
  }, [m?.key, b?.maxQueueDelayUs, b?.preferred.join(','), b?.maxBatchSize]);

  if (!m || !b) return <section className="card p-3 text-muted">{S.noModels}</section>;

  const sendDelay = (v: number) => {
    setDelay(v);
    clearTimeout(timer.current);
    // Debounced: a slider drag is one change for the server, not fifty.
    timer.current = setTimeout(() => void sendControl({ action: 'setDynamicBatching', model: m.name, version: m.version, max_queue_delay_microseconds: v })
      .then(revert(() => setDelay(b.maxQueueDelayUs))), 250);
  };
  const sendPreferred = () => {
    try {
      setLocalError(undefined);
      void sendControl({ action: 'setDynamicBatching', model: m.name, version: m.version, preferred_batch_size: parseSizes(preferred) })
        .then(revert(() => setPreferred(b.preferred.join(', '))));
    } catch (err) {
      setLocalError(`${S.preferredBatch}: ${(err as Error).message}`);
    }
  };
  const group = firstGroup(m);
  const count = activeInstances(m);
  // an iterative model's knobs are continuous batching's, not the dynamic batcher's (its steps run on one instance)
  const iterative = schedulerKindFor(m.config) === 'iterative';
  return (
    <section className="card" data-testid="controls">
      <h2 className="card-title">{S.controls}</h2>
      <div className="p-3 space-y-3">
        {!props.canControl && <p className="note" data-testid="viewer-note">{S.viewerNote}</p>}
        {live.models.size > 1 && (
          <label className="field">
            <span>{S.model}</span>
            <select value={m.key} onChange={(e) => appStore.setState({ target: e.target.value })} className="input" data-testid="target-select">
              {[...live.models.values()].map((x) => <option key={x.key} value={x.key} data-verbatim>{versionLabel(x)}</option>)}
            </select>
          </label>
        )}
        {iterative ? <IterativeControls model={m} disabled={disabled} /> : (
          <>
            {!b.dynamic && <p className="text-sm text-muted">{S.noBatching}</p>}
            <label className="field">
              <span className="flex justify-between"><span className="font-mono text-xs">{S.maxQueueDelay}</span><b>{formatDelay(delay)}</b></span>
              <input
                type="range" min={0} max={DELAY_TRACK} step={1} value={positionOf(delay)} disabled={disabled || !b.dynamic}
                onChange={(e) => sendDelay(delayAt(Number(e.target.value)))} data-testid="delay-slider" aria-valuetext={formatDelay(delay)}
              />
              <input
                type="number" min={DELAY.min} max={DELAY.max} step={DELAY.step} value={delay} disabled={disabled || !b.dynamic} className="input" data-testid="delay-input"
                onChange={(e) => sendDelay(Number(e.target.value))} aria-label={S.maxQueueDelay}
              />
            </label>
            <label className="field">
              <span className="font-mono text-xs">{S.preferredBatch}</span>
              <span className="flex gap-2">
                <input className="input flex-1" value={preferred} disabled={disabled || !b.dynamic} onChange={(e) => setPreferred(e.target.value)} data-testid="preferred-input" />
                <button type="button" className="btn" disabled={disabled || !b.dynamic} onClick={sendPreferred} data-testid="preferred-apply">{S.apply}</button>
              </span>
            </label>
            <label className="field">
              <span className="font-mono text-xs">{S.maxBatch}</span>
              <span className="flex gap-2">
                <input type="number" className="input flex-1" min={MAX_BATCH.min} max={MAX_BATCH.max} value={maxBatch} disabled={disabled} onChange={(e) => setMaxBatch(Number(e.target.value))} data-testid="maxbatch-input" />
                <button type="button" className="btn" disabled={disabled} data-testid="maxbatch-apply"
                  onClick={() => void sendControl({ action: 'setDynamicBatching', model: m.name, version: m.version, max_batch_size: maxBatch }).then(revert(() => setMaxBatch(b.maxBatchSize)))}>{S.apply}</button>
              </span>
            </label>
            <div className="field">
              <span className="font-mono text-xs">{S.instanceCount}{group ? ` (${group})` : ''}</span>
              <span className="flex items-center gap-2">
                <button type="button" className="btn" disabled={disabled || count <= INSTANCES.min} aria-label={S.instanceLess} data-testid="instances-minus"
                  onClick={() => void sendControl({ action: 'setInstanceCount', model: m.name, version: m.version, group, count: count - 1 })}>−</button>
                <b className="w-8 text-center" data-testid="instances-count">{count}</b>
                <button type="button" className="btn" disabled={disabled || count >= INSTANCES.max} aria-label={S.instanceMore} data-testid="instances-plus"
                  onClick={() => void sendControl({ action: 'setInstanceCount', model: m.name, version: m.version, group, count: count + 1 })}>+</button>
              </span>
            </div>
            {mode === 'live' && <AutotuneControl model={m} disabled={disabled} batching={b.dynamic && b.maxBatchSize > 0} />}
            {mode === 'live' && <CacheLimiterControls model={m} disabled={disabled} />}
          </>
        )}
        {localError && <p className="text-danger text-sm" role="alert">{localError}</p>}
        {mode === 'live' && <SaveConfig model={m.name} version={m.version} disabled={disabled} />}
        <AckLog />
      </div>
    </section>
  );
}
