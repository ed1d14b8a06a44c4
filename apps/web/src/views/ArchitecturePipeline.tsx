/**
 * The Architecture view's cells for an ensemble, in place of queues and instances (it has neither): its
 * pipeline, step by step with arrows in data-flow order, each step naming its composing model with that
 * model's state and how many of this ensemble's step requests it holds now (from the ensemble.step link
 * of each request); then the composing models whose queues and instances do the work.
 */
import { Fragment } from 'react';
import { live } from '../store/app-store';
import type { ModelLive } from '../store/live-types';
import { composingModel, stepsInFlight, type Pipeline } from '../store/pipeline';
import { useLiveText } from '../charts/use-live-text';
import { S } from '../i18n/strings';
import { Identifier } from '../charts/Identifier';

export function PipelineCells(props: { m: ModelLive; pipeline: Pipeline }) {
  const { m, pipeline } = props;
  const columns = Array.from({ length: pipeline.columns }, (_, c) => pipeline.steps.filter((s) => s.column === c));
  const composing = [...new Set(pipeline.steps.map((s) => s.model))];
  return (
    <>
      <div className="arch-cell" data-testid={`pipeline-${m.name}`} aria-label={S.pipeline.label(m.name)}>
        <div className="text-xs text-muted mb-1">{S.pipeline.title}</div>
        <div className="pipeline-strip">
          <span className="pipeline-end">{S.pipeline.inputs}</span>
          {columns.map((col, c) => (
            <Fragment key={c}>
              <span className="pipeline-arrow" aria-hidden>→</span>
              <div className="pipeline-column">
                {col.map((s) => <PipelineStepBox key={s.index} ensemble={m} index={s.index} model={s.model} from={s.from} steps={pipeline.steps.length} />)}
              </div>
            </Fragment>
          ))}
          <span className="pipeline-arrow" aria-hidden>→</span>
          <span className="pipeline-end">{S.pipeline.outputs}</span>
        </div>
      </div>
      <div className="arch-cell text-sm space-y-1">
        <div className="text-muted">{S.pipeline.runsOn}</div>
        {composing.map((name) => {
          const c = composingModel(live, name);
          return (
            <div key={name} className="flex flex-wrap items-center gap-x-2">
              <span className="font-mono min-w-0"><Identifier text={name} /></span>
              <span className={`badge state-${(c?.state ?? 'unavailable').toLowerCase()}`}>{c ? (S.modelStates[c.state] ?? c.state) : S.pipeline.missing}</span>
              {c && <span className="text-muted">{S.pipeline.instanceCount(c.instances.size)}</span>}
            </div>
          );
        })}
      </div>
    </>
  );
}

function PipelineStepBox(props: { ensemble: ModelLive; index: number; model: string; from: number[]; steps: number }) {
  const c = composingModel(live, props.model);
  const counts = useLiveText<HTMLDivElement>(() => {
    const inFlight = stepsInFlight(live, props.ensemble.key, props.steps)[props.index] ?? 0;
    return S.pipeline.counts(inFlight, props.ensemble.stepsSent?.[props.index] ?? 0);
  });
  return (
    <div className="pipeline-step" data-testid={`pipeline-step-${props.ensemble.name}-${props.index}`}
      title={props.from.length ? S.pipeline.reads(props.from.map((f) => f + 1)) : undefined}>
      <div className="flex flex-wrap items-center gap-x-1">
        <span className="text-muted text-xs">{props.index + 1}</span>
        <span className="font-mono text-sm min-w-0"><Identifier text={props.model} /></span>
        <span className={`badge state-${(c?.state ?? 'unavailable').toLowerCase()}`}>{c ? (S.modelStates[c.state] ?? c.state) : S.pipeline.missing}</span>
      </div>
      <div ref={counts} className="text-xs text-muted" />
    </div>
  );
}
