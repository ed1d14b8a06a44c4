import type { AbSide } from './ab-compare';
import { formatRate, formatUs } from '../charts/format';
import { S } from '../strings';

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
  return (
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
  );
}
