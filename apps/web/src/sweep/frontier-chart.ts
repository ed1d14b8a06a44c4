/**
 * Model Analyzer's main plot: throughput against p99 latency, one dot per measured config, the Pareto
 * front joined by a line and ringed, the best config within the budgets starred, the budget as a
 * vertical line.
 */
import type { RankedResult, SweepProgress } from '@inferscope/core';
import { chartTheme } from '../charts/theme';
import { drawAxes, drawEmpty, drawLine, makePlot } from '../charts/draw';
import { niceMax } from '../charts/scales';
import { formatRate, formatUs } from '../charts/format';
import type { ChartInfo } from '../charts/time-chart';
import { S } from '../i18n/strings';
import { shortConfig } from './sweep-form';

export function drawFrontier(ctx: CanvasRenderingContext2D, w: number, h: number, sweep: SweepProgress | undefined): ChartInfo {
  const th = chartTheme();
  const rs = sweep?.results ?? [];
  if (rs.length === 0) {
    drawEmpty(ctx, th, w, h, sweep?.state === 'running' ? S.sweep.measuring : S.sweep.none);
    return { legend: [], markers: 0 };
  }
  const budget = sweep?.latency_budget_us;
  const p = makePlot(ctx, w, h, th, [0, niceMax([...rs.map((r) => r.latency_us.p99), budget ?? 0], 1000)], [0, niceMax(rs.map((r) => r.throughput_per_s), 10)]);
  drawAxes(p, { yFormat: formatRate, xFormat: formatUs, xTicks: 5, xTitle: S.axis.p99, yTitle: S.axis.inferencesPerS });
  if (budget !== undefined) {
    ctx.strokeStyle = th.danger;
    ctx.setLineDash([5, 4]);
    ctx.beginPath();
    ctx.moveTo(p.x(budget), p.top);
    ctx.lineTo(p.x(budget), p.bottom);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  const front = rs.filter((r) => r.pareto).sort((a, b) => a.latency_us.p99 - b.latency_us.p99);
  drawLine(p, front, (r) => r.latency_us.p99, (r) => r.throughput_per_s, th.accent, 1.5);
  const best = rs.find((r) => r.rank === 1);
  for (const r of rs) dot(ctx, p.x(r.latency_us.p99), p.y(r.throughput_per_s), r, r === best, th);
  if (best) {
    ctx.font = `${th.fontSize}px ${th.font}`;
    ctx.fillStyle = th.fg;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    ctx.fillText(`★ ${shortConfig(best.config)}`, Math.min(p.x(best.latency_us.p99) + 8, p.right - 160), p.y(best.throughput_per_s) - 4);
  }
  return { legend: [S.sweep.pareto, S.sweep.best], markers: front.length };
}

function dot(ctx: CanvasRenderingContext2D, x: number, y: number, r: RankedResult, best: boolean, th: ReturnType<typeof chartTheme>): void {
  ctx.beginPath();
  ctx.arc(x, y, best ? 7 : 4.5, 0, Math.PI * 2);
  ctx.fillStyle = r.rank === null ? th.muted : r.pareto ? th.accent : th.ok;
  ctx.fill();
  if (r.pareto || best) {
    ctx.lineWidth = 2;
    ctx.strokeStyle = best ? th.warn : th.fg;
    ctx.stroke();
  }
}
