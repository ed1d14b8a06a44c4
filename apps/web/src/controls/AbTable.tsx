import { otherLoadWarning, type AbSide } from './ab-compare';
import { formatRate, formatUs } from '../charts/format';
import { chartTheme } from '../charts/theme';
import { drawAxes, drawEmpty, drawLegend, drawLine, makePlot } from '../charts/draw';
import { niceMax } from '../charts/scales';
import { ChartCard } from '../views/ChartCard';
import { S } from '../strings';

const SIDE_COLOUR = ['#4f46e5', '#f59e0b'];

/** The two runs over each other, per second since each started: throughput solid, p99 dashed (right scale). */
function drawRuns(sides: [AbSide, AbSide]) {
  return (ctx: CanvasRenderingContext2D, w: number, h: number) => {
    const th = chartTheme();
    const all = sides.flatMap((s) => s.series ?? []);
    if (all.length === 0) return drawEmpty(ctx, th, w, h, S.noDataInWindow);
    const xMax = Math.max(1, ...all.map((p) => p.s));
    const p = makePlot(ctx, w, h, th, [0, xMax], [0, niceMax(all.map((d) => d.throughput), 10)]);
    drawAxes(p, { yFormat: formatRate, xFormat: (v) => `${+v.toFixed(1)} s`, xTicks: 4, yTitle: S.axis.inferencesPerS });
    const p99 = makePlot(ctx, w, h, th, [0, xMax], [0, niceMax(all.map((d) => d.p99Us), 1000)]);
    sides.forEach((s, i) => {
      drawLine(p, s.series ?? [], (d) => d.s, (d) => d.throughput, SIDE_COLOUR[i]);
      drawLine(p99, s.series ?? [], (d) => d.s, (d) => d.p99Us, SIDE_COLOUR[i], 1.5, [4, 3]);
    });
    drawLegend(ctx, th, sides.map((s, i) => ({ label: s.label, colour: SIDE_COLOUR[i] })), p.left + 6, p.top + 6, p.right);
    return { legend: sides.map((s) => s.label) };
  };
}

/** A and B side by side; the better value of each row is bold. */
export function AbTable(props: { sides: [AbSide, AbSide] }) {
  const [a, b] = props.sides;
  const rows: [string, number, number, (v: number) => string, 'high' | 'low'][] = [
    [S.abRows.throughput, a.throughput, b.throughput, formatRate, 'high'],
    [S.abRows.p50, a.p50Us, b.p50Us, formatUs, 'low'],
    [S.abRows.p99, a.p99Us, b.p99Us, formatUs, 'low'],
    [S.abRows.avgBatch, a.avgBatch, b.avgBatch, (v) => v.toFixed(2), 'high'],
    [S.abRows.rejected, a.rejected, b.rejected, (v) => String(v), 'low'],
  ];
  const best = (x: number, y: number, dir: 'high' | 'low') => (x === y ? false : dir === 'high' ? x > y : x < y);
  const warnings = props.sides.map(otherLoadWarning).filter((w): w is string => w !== undefined);
  return (
    <>
    {warnings.map((w) => <p key={w} className="text-sm text-danger" role="alert" data-testid="ab-warning">{w}</p>)}
    <table className="w-full text-sm mt-2" data-testid="ab-table">
      <caption className="text-left text-xs text-muted">{S.abResult}</caption>
      <thead><tr><th className="text-left">{S.metric}</th><th>{a.label}</th><th>{b.label}</th></tr></thead>
      <tbody>
        {rows.map(([name, x, y, f, dir]) => (
          <tr key={name}>
            <td>{name}</td>
            <td className={`text-center ${best(x, y, dir) ? 'font-bold' : ''}`}>{f(x)}</td>
            <td className={`text-center ${best(y, x, dir) ? 'font-bold' : ''}`}>{f(y)}</td>
          </tr>
        ))}
      </tbody>
    </table>
    {props.sides.some((x) => x.series?.length) && <ChartCard title={S.abRuns} draw={drawRuns(props.sides)} height={150} testId="ab-chart" />}
    </>
  );
}
