/**
 * The token timeline: one row per batch slot, one cell per step, prefill and decode in different colours,
 * `held` where a sequence kept its slot without working (a finished member padding a request-level batch,
 * or one the step's token budget left out), a gap at every step boundary where a sequence joined, and a
 * red mark where one was preempted. Plain props (core's TimelineCell[] from TokenTimeline.view(), its row
 * count), no store: the live generation view and the lessons' simulator draw it alike. SVG without text
 * (the labels are HTML, so large type reaches them); the cells carry their numbers as data-* for tests.
 */
import type { TimelineCell } from '@inferscope/core/iterative';
import { S } from '../../i18n/strings';
import { seqColour } from './seq-colour';
import { cellsWindow, timelineRows, type RunKind, type StepWindow } from './timeline-runs';

export interface TokenTimelineChartProps {
  /** core TokenTimeline.view() */
  cells: readonly TimelineCell[];
  /** core TokenTimeline.rows: the slots ever used */
  rows: number;
  /** the steps drawn, inclusive (default: the cells' first to last step) */
  window?: StepWindow;
}

export const KIND_FILL: Record<RunKind | 'preempted', string> = {
  prefill: 'var(--c-warn)',
  decode: 'var(--c-accent)',
  // muted and faint: present (the slot is taken) but visibly not working, in light and dark themes
  held: 'color-mix(in srgb, var(--c-muted) 45%, transparent)',
  preempted: 'var(--c-danger)',
};

export function TokenTimelineChart(props: TokenTimelineChartProps) {
  const window = props.window ?? cellsWindow(props.cells);
  const rows = window ? timelineRows(props.cells, props.rows, window) : [];
  const span = window ? window.to - window.from + 1 : 0;
  return (
    <div className="text-sm space-y-1" data-testid="token-timeline" data-rows={props.rows} data-from={window?.from ?? ''} data-to={window?.to ?? ''}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-muted">
        {(['prefill', 'decode', 'held', 'preempted'] as const).map((k) => (
          <span key={k} className="inline-flex items-center gap-1">
            <span className="inline-block w-3 h-3 rounded-sm" style={{ background: KIND_FILL[k] }} />
            {S.genKinds[k]}
          </span>
        ))}
        <span className="ml-auto font-mono">{window ? S.genSteps(window.from, window.to) : S.genNoSteps}</span>
      </div>
      {rows.map((row) => (
        <div
          key={row.slot}
          className="flex items-center gap-2"
          data-testid="token-timeline-row"
          data-slot={row.slot}
          data-seqs={row.ids.join(' ')}
          data-prefill={row.cells.prefill}
          data-decode={row.cells.decode}
          data-held={row.cells.held}
          data-preempted={row.cells.preempted}
          data-joins={row.runs.filter((r) => r.joins).length}
        >
          <span className="font-mono text-muted w-8 shrink-0 text-right">{S.genSlot(row.slot)}</span>
          <svg className="flex-1 min-w-0 h-4 block" viewBox={`0 0 ${Math.max(1, span)} 1`} preserveAspectRatio="none" role="img" aria-label={S.genSlot(row.slot)}>
            <rect x={0} y={0} width={Math.max(1, span)} height={1} fill="var(--c-bg)" />
            {window && row.runs.map((r) => {
              const x = r.from - window.from;
              const w = r.to - r.from + 1;
              return (
                <g key={`${r.from}-${r.id}`}>
                  <rect x={x} y={0.08} width={w} height={0.7} fill={KIND_FILL[r.kind]}>
                    <title>{S.genCellTip(r.id, S.genKinds[r.kind], r.from, r.to, r.tokens)}</title>
                  </rect>
                  {/* the sequence's own colour underneath: the same as its blocks in the KV block map */}
                  <rect x={x} y={0.8} width={w} height={0.2} fill={seqColour(r.id)} />
                </g>
              );
            })}
            {/* a join at a step boundary: a cut 2 px wide whatever the zoom, so back-to-back sequences part */}
            {window && row.runs.filter((r) => r.joins).map((r) => (
              <line key={`j${r.from}`} x1={r.from - window.from} x2={r.from - window.from} y1={0} y2={1} stroke="var(--c-panel)" strokeWidth={2} vectorEffect="non-scaling-stroke" />
            ))}
            {window && row.preempted.map((p) => (
              <rect key={`p${p.step}-${p.id}`} data-preempted={p.id} x={p.step - window.from} y={0} width={Math.max(0.35, span / 150)} height={1} fill={KIND_FILL.preempted}>
                <title>{S.genCellTip(p.id, S.genKinds.preempted, p.step, p.step, 0)}</title>
              </rect>
            ))}
          </svg>
        </div>
      ))}
    </div>
  );
}
