/**
 * One experiment table as bars a class can read from the back of the room: every row a bar on one scale
 * (rows that share a group side by side, coloured by their series: batching off / on, one backend / the
 * other), the value written at the bar's end, the row the lesson knob is set to now marked, the metric as
 * the knob (opening on the one the claim is about), and the verdict under it. Each group's label sits left of
 * its bars, so a table of eight rows still leaves the verdict on a 720 px screen. DOM, not canvas: its text
 * follows the page's type scale (large type) and wraps instead of colliding.
 */
import { useState, type ReactNode } from 'react';
import { MODEL_PALETTE } from '../charts/theme';
import { S } from '../i18n/strings';
import type { ExperimentTable } from './experiments';
import { buildFigure, claimMetric, higherIsBetter, METRICS, type Metric } from './experiment-figure';

/** `children`: the panel's own controls (the table tabs, run again), placed in the title's row. */
export function ExperimentChart(props: { table: ExperimentTable; current?: number; children?: ReactNode }) {
  const { table } = props;
  const [metric, setMetric] = useState<Metric>(claimMetric(table.id));
  const fig = buildFigure(table, metric, props.current);
  const colour = (series: string) => (fig.series.length > 1 ? MODEL_PALETTE[fig.series.indexOf(series) % MODEL_PALETTE.length] : 'var(--c-accent)');
  const pct = (v: number) => `${Math.max(0, Math.min(100, (v / fig.max) * 100))}%`;
  const cols = S.exp.cols;
  return (
    <figure className="exp-chart space-y-1" data-testid="experiment-chart" data-table={table.id} data-metric={metric}>
      <div className="flex items-center gap-2">
        <figcaption className="font-semibold flex-1 min-w-0">{table.title}</figcaption>
        {props.children}
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        <span>{S.exp.chart.show}{S.colon}</span>
        <div className="seg flex-wrap exp-metrics" role="radiogroup" aria-label={S.exp.chart.show}>
          {METRICS.map((m) => (
            <button key={m} type="button" role="radio" aria-checked={m === metric} className={m === metric ? 'on' : ''} onClick={() => setMetric(m)} data-testid={`exp-metric-${m}`}>{cols[m]}</button>
          ))}
        </div>
        <span className="text-muted">({higherIsBetter(metric) ? S.exp.chart.higherBetter : S.exp.chart.lowerBetter})</span>
        {fig.series.length > 1 && (
          <ul className="flex flex-wrap gap-x-4" data-testid="exp-legend">
            {fig.series.map((s) => <li key={s} className="flex items-center gap-1"><span className="exp-swatch" style={{ background: colour(s) }} />{s}</li>)}
          </ul>
        )}
      </div>
      {/* one grid line per group: its label on the left, its bars (one per series) on the right */}
      <div className="exp-bars" role="img" aria-label={`${table.title}: ${cols[metric]}`}>
        <div className="exp-group" aria-hidden="true">
          <span />
          <div className="exp-row">
            <div className="exp-track exp-axis">
              {/* past five ticks every other one is labelled (the grid keeps them all): "250 ms300 ms" collided */}
              {fig.ticks.map((t, i) => (fig.ticks.length > 5 && i % 2 === 1 ? null : (
                <span key={t.value} className="exp-tick" style={{ left: pct(t.value), transform: `translateX(${i === 0 ? '0' : t.value >= fig.max ? '-100%' : '-50%'})` }}>{t.label}</span>
              )))}
            </div>
          </div>
        </div>
        {fig.groups.map((g) => (
          <div key={g.label} className="exp-group" data-testid="exp-group">
            <div className="exp-group-label text-sm">
              {g.label}
              {g.bars.some((b) => b.current) && <b className="exp-current" data-testid="exp-current"> ◀ {S.exp.chart.current}</b>}
            </div>
            <div>
              {g.bars.map((b) => (
                <div key={b.row} className={`exp-row${b.current ? ' current' : ''}`} data-testid="exp-bar" data-row={b.row} data-value={b.value} data-current={b.current ? '1' : undefined}>
                  <div className="exp-track">
                    {fig.ticks.map((t) => <span key={t.value} className="exp-grid" style={{ left: pct(t.value) }} />)}
                    <span className="exp-bar" style={{ width: pct(b.value), background: colour(b.series) }} />
                  </div>
                  <span className="exp-value">{b.label}</span>
                </div>
              ))}
            </div>
          </div>
        ))}
      </div>
      <p className="exp-verdict" data-testid="experiment-verdict" data-holds={String(table.holds)}>{table.verdict}</p>
    </figure>
  );
}
