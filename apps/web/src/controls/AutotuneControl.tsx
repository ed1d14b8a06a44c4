/**
 * The autotuner's switch in Live Controls: on/off and the p99 target, sent as `setAutotune` (the same token
 * rule as every live change). While it runs the delay is the tuner's to move; the panel says what it sees
 * (met, not met with the best p99 and its limit, holding, and after unticking what it restored). The
 * target offered first is the tuner's, else the one the config declares (autotune_p99_ms), else 3 ms.
 */
import { useEffect, useState } from 'react';
import { autotuneTargetUs } from '@inferscope/core/autotune';
import { strictNumber } from '@inferscope/core/config';
import { LIVE_LIMITS } from '@inferscope/core/live-config';
import { live, syncStructure } from '../store/app-store';
import type { ModelLive } from '../store/live-types';
import { sendControl } from '../live/control';
import { autotuneStatusLine } from '../charts/autotune-marks';
import { S } from '../i18n/strings';

/** the control schema's bound: a target no longer than the longest delay the limits allow */
const MAX_TARGET_MS = LIVE_LIMITS.max_queue_delay_microseconds.max / 1000;
const DEFAULT_TARGET_US = 3000;

function declaredTargetUs(m: ModelLive): number | undefined {
  try {
    return autotuneTargetUs(m.config as Parameters<typeof autotuneTargetUs>[0]);
  } catch {
    return undefined; // a refused value never reaches READY; nothing to offer
  }
}

export function AutotuneControl(props: { model: ModelLive; disabled: boolean; batching: boolean }) {
  const m = props.model;
  const on = m.autotune?.enabled === true;
  const current = m.autotune?.target_us ?? declaredTargetUs(m) ?? DEFAULT_TARGET_US;
  const [targetMs, setTargetMs] = useState(String(current / 1000));
  useEffect(() => setTargetMs(String(current / 1000)), [m.key, current]);
  const disabled = props.disabled || !props.batching;

  const send = (enabled: boolean) => {
    // read strictly (core's plain digits): a typo reaches the server as no number and is refused there,
    // in the acknowledgement log, rather than ignored or read as something else ('1e3', '0x10')
    const text = targetMs.trim();
    void sendControl({ action: 'setAutotune', model: m.name, version: m.version, enabled, ...(enabled && text !== '' ? { target_ms: strictNumber(text, false) } : {}) })
      .then((ack) => {
        if (!ack.ok) return; // the reason is in the acknowledgement log
        live.setAutotune(m.key, ack.autotune);
        syncStructure();
      });
  };

  return (
    <div className="field" data-testid="autotune-control">
      <span className="font-mono text-xs">{S.autotune.title}</span>
      <span className="flex items-center gap-2">
        <label className="flex items-center gap-1 text-sm">
          <input type="checkbox" checked={on} disabled={disabled} onChange={(e) => send(e.target.checked)} data-testid="autotune-toggle" />
          {S.autotune.toggle}
        </label>
        <input
          type="number" className="input flex-1" min={0.001} max={MAX_TARGET_MS} step={0.1} value={targetMs} disabled={disabled}
          onChange={(e) => setTargetMs(e.target.value)} aria-label={S.autotune.targetMs} title={S.autotune.targetMs} data-testid="autotune-target"
        />
        <button type="button" className="btn" disabled={disabled} onClick={() => send(true)} data-testid="autotune-apply">{S.apply}</button>
      </span>
      <span className="text-xs text-muted" data-testid="autotune-status">
        {!props.batching ? S.autotune.needsBatching : autotuneStatusLine(m.autotune)}
      </span>
    </div>
  );
}
