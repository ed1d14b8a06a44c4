import type { ABMetric } from '@inferscope/core/load';
import { otherLoadWarning } from './ab-compare';
import { AB_FIGURE, betterOn, type AbResult, type AbSide } from './ab-rounds';
import { formatRate, formatUs } from '../charts/format';
import { chartTheme } from '../charts/theme';
import { drawAxes, drawEmpty, drawLegend, drawLine, drawRightAxis, makePlot } from '../charts/draw';
import { niceMax } from '../charts/scales';
import { ChartCard } from '../charts/ChartCard';
import { S } from '../i18n/strings';

const SIDE_COLOUR = ['#4f46e5', '#f59e0b'];

/**
 * Every round of both sides over each other, per second since the round started: throughput solid on
 * the left scale, p99 dashed on its own latency scale at the right (a latency has no place on an
 * inferences/s axis). Several lines of one colour are that side's rounds: their spread is visible.
 */
function drawRuns(sides: [AbSide, AbSide]) {
  return (ctx: CanvasRenderingContext2D, w: number, h: number) => {
    const th = chartTheme();
    const all = sides.flatMap((s) => s.runs.flatMap((r) => r.series ?? []));
    if (all.length === 0) return drawEmpty(ctx, th, w, h, S.noDataInWindow);
    const xMax = Math.max(1, ...all.map((p) => p.s));
    const side = Math.max(44, th.fontSize * 4.4);
    const m = { l: side, r: side, t: th.fontSize + 6, b: th.fontSize + 10 };
    const p = makePlot(ctx, w, h, th, [0, xMax], [0, niceMax(all.map((d) => d.throughput), 10)], m);
    drawAxes(p, { yFormat: formatRate, xFormat: (v) => `${+v.toFixed(1)} s`, xTicks: 4, yTitle: S.axis.inferencesPerS });
    const p99 = makePlot(ctx, w, h, th, [0, xMax], [0, niceMax(all.map((d) => d.p99Us), 1000)], m);
    drawRightAxis(p99, 'us', S.abP99Axis);
    sides.forEach((s, i) => {
      for (const r of s.runs) {
        drawLine(p, r.series ?? [], (d) => d.s, (d) => d.throughput, SIDE_COLOUR[i]);
        drawLine(p99, r.series ?? [], (d) => d.s, (d) => d.p99Us, SIDE_COLOUR[i], 1.5, [4, 3]);
      }
    });
    drawLegend(ctx, th, sides.map((s, i) => ({ label: s.label, colour: SIDE_COLOUR[i] })), p.left + 6, p.top + 6, p.right);
    return { legend: sides.map((s) => s.label), axes: [S.axis.inferencesPerS, S.abP99Axis] };
  };
}

/** Median and range over the rounds ("812 (790–830)"), or the one value of a single round. */
function cell(s: AbSide, m: ABMetric, f: (v: number) => string, rounds: number): string {
  const sp = s.spread[m];
  return rounds > 1 ? `${f(sp.median)} (${f(sp.min)}–${f(sp.max)})` : f(sp.median);
}

/** A and B side by side; a value is bold only where the verdict says its side is better beyond the noise. */
export function AbTable(props: { result: AbResult }) {
  const r = props.result;
  const [a, b] = r.sides;
  const rows: [string, ABMetric, (v: number) => string][] = [
    [S.abRows.throughput, 'throughput_per_s', formatRate],
    [S.abRows.p50, 'p50_us', formatUs],
    [S.abRows.p99, 'p99_us', formatUs],
    [S.abRows.avgBatch, 'avg_batch_size', (v) => v.toFixed(2)],
  ];
  const name = (m: ABMetric) => rows.find((x) => x[1] === m)?.[0] ?? m;
  const warnings = r.sides.map(otherLoadWarning).filter((w): w is string => w !== undefined);
  const bold = (s: AbSide, m: ABMetric) => (betterOn(r, m) === s.label ? 'font-bold' : '');
  return (
    <>
    {warnings.map((w) => <p key={w} className="text-sm text-danger" role="alert" data-testid="ab-warning">{w}</p>)}
    <table className="w-full text-sm mt-2" data-testid="ab-table" data-rounds={r.rounds}>
      <caption className="text-left text-xs text-muted">{S.abResult} · {S.abSpreadNote(r.rounds)}</caption>
      <thead><tr><th className="text-left">{S.metric}</th><th>{a.label}</th><th>{b.label}</th></tr></thead>
      <tbody>
        {rows.map(([label, m, f]) => (
          <tr key={m} data-metric={m}>
            <td>{label}</td>
            {[a, b].map((s) => <td key={s.label} className={`text-center ${bold(s, m)}`} data-rounds-values={s.runs.map(AB_FIGURE[m]).map((v) => Math.round(v)).join(',')}>{cell(s, m, f, r.rounds)}</td>)}
          </tr>
        ))}
        <tr><td>{S.abRows.rejected}</td><td className="text-center">{a.rejected}</td><td className="text-center">{b.rejected}</td></tr>
      </tbody>
    </table>
    <ul className="text-xs text-muted mt-1" data-testid="ab-verdicts">
      {r.verdicts.map((v) => <li key={v.metric} data-metric={v.metric} data-better={v.better ?? ''}>{S.abVerdict(name(v.metric), v.better, r.rounds)}</li>)}
    </ul>
    {r.sides.some((s) => s.runs.some((x) => x.series?.length)) && <ChartCard title={S.abRuns} draw={drawRuns(r.sides)} height={170} testId="ab-chart" />}
    </>
  );
}
