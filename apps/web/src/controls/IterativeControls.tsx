/**
 * Live Controls of an iterative model (continuous batching): its step knobs, TensorRT-LLM's parameters
 * (core live-config's ITERATIVE_KNOBS: names, kinds, bounds), each sent as `setIterativeKnobs`. The server
 * applies a change at the next step boundary (the policy and the KV budget by a new KV cache that
 * recomputes the running sequences) or refuses it in its words in the acknowledgement log; the inputs
 * follow the model's live config (`parameters`), so a refused value goes back to the live one.
 */
import { useEffect, useState } from 'react';
import { ITERATIVE_KNOBS, LIVE_LIMITS, type IterativeKnob, type IterativeKnobField } from '@inferscope/core/live-config';
import type { ModelLive } from '../store/live-types';
import { sendControl } from '../live/control';
import { S } from '../i18n/strings';
import { useApp } from '../store/app-store';

/** The knob's value in the live config: Triton's parameters are strings ('' when the config leaves it to the default). */
function liveValue(m: ModelLive, field: IterativeKnobField): string {
  const params = (m.config as { parameters?: Record<string, { string_value?: string }> }).parameters;
  return params?.[field]?.string_value ?? '';
}

function KnobInput(props: { knob: IterativeKnob; model: ModelLive; disabled: boolean }) {
  const { knob, model: m } = props;
  const T = S.iterativeControls;
  const current = liveValue(m, knob.field);
  const [draft, setDraft] = useState(current);
  useEffect(() => setDraft(current), [m.key, current]);
  // a refused value goes back to the live one (the reason is in the acknowledgement log)
  const send = (value: number | boolean | string) => void sendControl({ action: 'setIterativeKnobs', model: m.name, version: m.version, [knob.field]: value })
    .then((ack) => {
      if (!ack.ok) setDraft(current);
    });
  const id = `knob-${knob.field}`;
  return (
    <label className="field" data-testid={id}>
      <span className="flex justify-between gap-2">
        <span className="font-mono text-xs" data-verbatim>{knob.field}</span>
        <span className="text-xs text-muted">{T.knob[knob.field]}</span>
      </span>
      {knob.kind === 'count' && (
        <span className="flex gap-2">
          <input
            type="number" className="input flex-1" min={LIVE_LIMITS[knob.limit].min} max={LIVE_LIMITS[knob.limit].max} step={LIVE_LIMITS[knob.limit].step}
            value={draft} placeholder={T.unset} disabled={props.disabled} onChange={(e) => setDraft(e.target.value)} data-testid={`${id}-input`} aria-label={knob.field}
          />
          <button type="button" className="btn" disabled={props.disabled || draft === '' || draft === current} data-testid={`${id}-apply`}
            onClick={() => send(Number(draft))}>{S.apply}</button>
        </span>
      )}
      {knob.kind === 'switch' && (
        <span className="flex">
          <input type="checkbox" checked={current === 'true'} disabled={props.disabled} data-testid={`${id}-input`} onChange={(e) => send(e.target.checked)} aria-label={knob.field} />
        </span>
      )}
      {knob.kind === 'choice' && (
        <select className="input" value={current} disabled={props.disabled} data-testid={`${id}-input`} onChange={(e) => send(e.target.value)} aria-label={knob.field}>
          {current === '' && <option value="">{T.unset}</option>}
          {knob.values.map((v) => <option key={v} value={v} data-verbatim>{v}</option>)}
        </select>
      )}
    </label>
  );
}

export function IterativeControls(props: { model: ModelLive; disabled: boolean }) {
  const T = S.iterativeControls;
  const teaching = useApp((s) => s.mode) === 'teach';
  return (
    <div className="space-y-3" data-testid="iterative-controls">
      <h3 className="text-sm font-semibold">{T.heading}</h3>
      {teaching && <p className="text-xs text-muted" data-testid="iterative-teaching-note">{T.teaching}</p>}
      {ITERATIVE_KNOBS.map((k) => <KnobInput key={k.field} knob={k} model={props.model} disabled={props.disabled} />)}
      <p className="text-xs text-muted">{T.caption}</p>
    </div>
  );
}
