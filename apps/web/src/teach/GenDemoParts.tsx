/**
 * What the three generative lessons' demos (RebuildDemo, KvLimitDemo, ChunkDemo) share: a knob as a row of
 * buttons, the stage's layout (the knobs, the picture beside the verdict, the step cost's line (fitted or modelled) under them), the
 * folded table of every run the verdict is computed from, and the one way their pictures follow the stage
 * header's playback (`useGenReveal`). The pictures themselves are the generation view's components
 * (charts/generate), not drawn here.
 */
import { useEffect, useMemo, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { takeFocus } from './focus';
import { genCostSource, type GenRun } from './gen-run';
import { revealRun, stepEnds, stepsShownAt, type GenReveal } from './gen-reveal';
import { playback, playbackStore } from './playback';
import { formatUs } from '../charts/format';
import type { GenDemoText } from '../i18n/lesson-rebuild';

/**
 * The run shown as far as the stage header's simulated time (gen-reveal.ts: the run's µs are the
 * playback's): re-renders when a step is crossed, not every frame, and gives the header's step button the
 * run's step ends, so one press shows one more step.
 */
export function useGenReveal(run: GenRun): GenReveal {
  const ends = useMemo(() => stepEnds(run), [run]);
  const step = useStore(playbackStore, (s) => stepsShownAt(ends, s.t));
  useEffect(() => {
    playback.setStepMarks(ends);
    return () => playback.setStepMarks(null);
  }, [ends]);
  return useMemo(() => revealRun(run, ends, step), [run, ends, step]);
}

/** `quiet`: the label is for screen readers only (the options name themselves, e.g. a policy's config values) */
export function KnobButtons<T extends string | number | boolean>(props: { label: string; options: readonly T[]; value: T; set: (v: T) => void; name: (v: T) => string; testid: string; mono?: boolean; quiet?: boolean }) {
  return (
    <div role="group" aria-label={props.label} className="flex gap-1 items-center">
      {!props.quiet && <span className={`font-semibold mr-1 ${props.mono ? 'font-mono' : ''}`}>{props.label}</span>}
      {props.options.map((o) => (
        <button key={String(o)} type="button" className="btn" aria-pressed={o === props.value} onClick={() => props.set(o)} data-testid={`${props.testid}-${String(o)}`}>{props.name(o)}</button>
      ))}
    </div>
  );
}

/**
 * The demo's card: knobs, then the picture beside the verdict (half each), the step cost's line, the rows
 * folded below. `under`: a second view of the same run under the verdict, where the screen still has room.
 * `reveal`: how much of the run the picture shows (said under the verdict, and as data-step / data-steps);
 * the verdict and the rows are always the whole runs.
 */
export function GenStage(props: { testid: string; data: Record<string, string | number>; knobs: ReactNode; picture: ReactNode; reveal: GenReveal; verdict: string; under?: ReactNode; text: GenDemoText; table: ReactNode }) {
  const r = props.reveal;
  const data = Object.fromEntries(Object.entries({ ...props.data, step: r.step, steps: r.steps }).map(([k, v]) => [`data-${k}`, v]));
  // a misconception card's "Show me" may point at this demo: it is on the page now
  useEffect(takeFocus, []);
  return (
    <div className="card p-3 mb-2 space-y-2" data-testid={props.testid} {...data}>
      <div className="flex flex-wrap gap-x-4 gap-y-2 items-center text-sm">
        {props.knobs}
      </div>
      <div className="grid gap-3 lg:grid-cols-2 items-start">
        <figure className="space-y-1 min-w-0" data-testid="gen-picture">{props.picture}</figure>
        <div className="space-y-2 min-w-0">
          <p className="font-semibold" data-testid="gen-verdict">{props.verdict}</p>
          <p className="text-sm text-muted" data-testid="gen-shown" data-whole={String(r.whole)}>{props.text.shown(r.step, r.steps, formatUs(r.atUs), formatUs(r.spanUs), r.whole)}</p>
          {props.under}
        </div>
      </div>
      {/* where the step cost comes from: under the proof, so the verdict keeps its place on a projector's screen */}
      <p className="text-sm text-muted" data-testid="gen-cost">{props.text.cost(genCostSource())}</p>
      <details data-testid="gen-rows">
        <summary className="text-sm cursor-pointer">{props.text.rows}</summary>
        {props.table}
      </details>
    </div>
  );
}

export interface RowCells {
  key: string;
  current: boolean;
  cells: (string | number)[];
  data: Record<string, string | number>;
}

export function RowsTable(props: { head: string[]; rows: RowCells[] }) {
  return (
    <table className="text-sm font-mono" data-testid="gen-table">
      <thead>
        <tr>{props.head.map((h) => <th key={h} className="text-left pr-4">{h}</th>)}</tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr key={r.key} className={r.current ? 'font-bold' : ''} data-testid="gen-row" {...Object.fromEntries(Object.entries(r.data).map(([k, v]) => [`data-${k}`, v]))}>
            {r.cells.map((c, i) => <td key={i} className="pr-4">{c}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** tokens/s as a whole number */
export const perS = (v: number) => Math.round(v).toLocaleString('en-US');
