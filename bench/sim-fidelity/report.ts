/** How the fidelity scripts report: the four target metrics, per-round cells and the medians table. */
import type { SimSummary } from '@inferscope/core/sim';
import type { Case } from './real-run';
import { median } from '../median';

export const pct = (sim: number, real: number) => (real === 0 ? 0 : ((sim - real) / real) * 100);

export const METRICS = [
  ['throughput/s', (s: SimSummary) => s.throughput_per_s, 0],
  ['mean batch', (s: SimSummary) => s.avg_batch_size, 2],
  ['p50 µs', (s: SimSummary) => s.latency_us.p50, 0],
  ['p99 µs', (s: SimSummary) => s.latency_us.p99, 0],
] as const;

/** "sim / real (diff%)" for each metric of one round */
export const roundCells = (sim: SimSummary, real: SimSummary): string =>
  METRICS.map((m) => `${m[1](sim).toFixed(m[2])} / ${m[1](real).toFixed(m[2])} (${pct(m[1](sim), m[1](real)).toFixed(0)}%)`).join(' | ');

export const caseLabel = (c: Case) => `${c.name} (${c.rate}/s)`;

/** Markdown table of medians over rounds, simulated / real (difference), one row per case. */
export function mediansTable<R extends { real: SimSummary }>(title: string, cases: readonly Case[], rowsOf: (c: Case) => R[], simOf: (x: R) => SimSummary): string {
  const lines = [`\n${title}`, `| case | ${METRICS.map((m) => m[0]).join(' | ')} |\n|---|${METRICS.map(() => '---').join('|')}|`];
  for (const c of cases) {
    const runs = rowsOf(c);
    if (runs.length === 0) continue;
    const cells = METRICS.map((m) => {
      const s = median(runs.map((x) => m[1](simOf(x))));
      const re = median(runs.map((x) => m[1](x.real)));
      const d = median(runs.map((x) => pct(m[1](simOf(x)), m[1](x.real))));
      return `${s.toFixed(m[2])} / ${re.toFixed(m[2])} (${d >= 0 ? '+' : ''}${d.toFixed(0)}%)`;
    });
    lines.push(`| ${caseLabel(c)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
