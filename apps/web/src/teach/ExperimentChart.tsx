/**
 * One experiment table as bars a class can read from the back of the room: every row a bar on one scale
 * (rows that share a group side by side, coloured by their series: batching off / on, one backend / the
 * other), the value written at the bar's end, the row the lesson knob is set to now marked, the metric as
 * the knob (opening on the one the claim is about), and the verdict under it. DOM, not canvas: its text
 * follows the page's type scale (large type) and wraps instead of colliding.
 */
import { useState } from 'react';
import { MODEL_PALETTE } from '../charts/theme';
import { S } from '../i18n/strings';
import type { ExperimentTable } from './experiments';
import { buildFigure, claimMetric, higherIsBetter, METRICS, type Metric } from './experiment-figure';

export function ExperimentChart(props: { table: ExperimentTable; current?: number }) {
  const { table } = props;
  const [metric, setMetric] = useState<Metric>(claimMetric(table.id));
  const fig = buildFigure(table, metric, props.current);
  const colour = (series: string) => (fig.series.length > 1 ? MODEL_PALETTE[fig.series.indexOf(series) % MODEL_PALETTE.length] : 'var(--c-accent)');
  const pct = (v: number) => `${Math.max(0, Math.min(100, (v / fig.max) * 100))}%`;
  const cols = S.exp.cols;
  return (
    <figure className="exp-chart space-y-2" data-testid="experiment-chart" data-table={table.id} data-metric={metric}>
      <figcaption className="font-semibold">{table.title}</figcaption>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span>{S.exp.chart.show}{S.colon}</span>
        <div className="seg flex-wrap" role="radiogroup" aria-label={S.exp.chart.show}>
          {METRICS.map((m) => (
            <button key={m} type="button" role="radio" aria-checked={m === metric} className={m === metric ? 'on' : ''} onClick={() => setMetric(m)} data-testid={`exp-metric-${m}`}>{cols[m]}</button>
          ))}
        </div>
        <span className="text-muted">({higherIsBetter(metric) ? S.exp.chart.higherBetter : S.exp.chart.lowerBetter})</span>
      </div>
      {fig.series.length > 1 && (
        <ul className="flex flex-wrap gap-4 text-sm" data-testid="exp-legend">
          {fig.series.map((s) => <li key={s} className="flex items-center gap-1"><span className="exp-swatch" style={{ background: colour(s) }} />{s}</li>)}
        </ul>
      )}
      <div className="exp-bars" role="img" aria-label={`${table.title}: ${cols[metric]}`}>
        <div className="exp-row" aria-hidden="true">
          <div className="exp-track exp-axis">
            {fig.ticks.map((t, i) => (
              <span key={t.value} className="exp-tick" style={{ left: pct(t.value), transform: `translateX(${i === 0 ? '0' : t.value >= fig.max ? '-100%' : '-50%'})` }}>{t.label}</span>
            ))}
          </div>
        </div>
        {fig.groups.map((g) => (
          <div key={g.label} className="exp-group" data-testid="exp-group">
            <div className="exp-group-label text-sm">
              {g.label}
              {g.bars.some((b) => b.current) && <b className="exp-current" data-testid="exp-current"> ◀ {S.exp.chart.current}</b>}
            </div>
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
        ))}
      </div>
      <p className="exp-verdict" data-testid="experiment-verdict" data-holds={String(table.holds)}>{table.verdict}</p>
    </figure>
  );
}
