/**
 * The state view's panel for an iterative (continuous-batching) model: its token timeline over the newest
 * steps and its KV block map, from the `generation` messages the store keeps (live.generation). React
 * re-renders a model's panel only when a message moved it, looked at a few times a second by the frame loop.
 */
import { useState } from 'react';
import { schedulerKindFor } from '@inferscope/core/scheduler';
import { live } from '../../store/app-store';
import type { ModelLive } from '../../store/live-types';
import { versionLabel } from '../../store/select';
import { useLiveElement } from '../../charts/use-live-text';
import { S } from '../../i18n/strings';
import { KvBlockMap, TokenTimelineChart } from '../../charts/generate';

/** steps the live timeline shows: about the newest message's worth, cells wide enough to read */
export const LIVE_TIMELINE_STEPS = 100;

export function iterativeModels(models: ModelLive[]): ModelLive[] {
  return models.filter((m) => schedulerKindFor(m.config) === 'iterative');
}

export function GenerationStateCard(props: { models: ModelLive[] }) {
  const models = iterativeModels(props.models);
  if (models.length === 0) return null;
  return (
    <section className="card lg:col-span-2" data-testid="generation-state">
      <h3 className="card-title">{S.genStateTitle}</h3>
      <div className="p-3 space-y-4">
        {models.map((m) => (
          <GenerationModel key={m.key} modelKey={m.key} label={versionLabel(m)} />
        ))}
      </div>
    </section>
  );
}

function GenerationModel(props: { modelKey: string; label: string }) {
  const [rev, setRev] = useState(() => live.generation.get(props.modelKey)?.rev ?? -1);
  const ref = useLiveElement<HTMLDivElement>(() => {
    const now = live.generation.get(props.modelKey)?.rev ?? -1;
    if (now !== rev) setRev(now);
  }, 250);
  const view = live.generation.get(props.modelKey);
  const last = view?.lastStep ?? 0;
  const window = last > 0 ? { from: Math.max(1, last - LIVE_TIMELINE_STEPS + 1), to: last } : undefined;
  return (
    <div ref={ref} className="space-y-2" data-testid="generation-model" data-model={props.modelKey}>
      <p className="font-mono text-sm">
        {props.label}
        {view && view.skippedSteps > 0 && <span className="text-muted"> · {S.genSkipped(view.skippedSteps)}</span>}
      </p>
      <div className="grid gap-4 2xl:grid-cols-2">
        <div className="min-w-0">
          <h4 className="text-sm font-semibold mb-1">{S.genTimelineTitle}</h4>
          {view && view.cells.length > 0 ? <TokenTimelineChart cells={view.cells} rows={view.rows} window={window} /> : <p className="text-sm text-muted">{S.genWaiting}</p>}
        </div>
        <div className="min-w-0">
          <h4 className="text-sm font-semibold mb-1">{S.genKvTitle}</h4>
          {view?.kv ? <KvBlockMap map={view.kv} /> : <p className="text-sm text-muted">{S.genWaiting}</p>}
        </div>
      </div>
    </div>
  );
}
