/**
 * One drawing routine for every time chart of the Performance view: one line per series (model version or
 * percentile) with a legend, a y axis scaled to the typical value (robust) or logarithmic, spikes that
 * the robust axis clips marked at the top edge, and a vertical marker at each configuration change.
 */
import { S } from '../strings';
import { textPx, type ChartTheme } from './theme';
import type { AxisKind } from './format';
import { drawAxes, drawEmpty, drawLegend, drawLine, makePlot, relativeSeconds, withAlpha, type Plot } from './draw';
import { logDomain, robustMax, type SeriesPoint } from './series';

export interface LineSpec {
  label: string;
  colour: string;
  points: SeriesPoint[];
  dash?: number[];
  /** fill under the line */
  fill?: boolean;
  /** false: a companion line (dashed p50 of a version) the legend names through the chart's note */
  inLegend?: boolean;
}

export interface Marker {
  t: number;
  /** short text at the top of the line ("delay 2 ms → 4 ms") */
  label: string;
}

/** What a chart drew, for the DOM (legend text, marker count) so tests and screen readers can read it. */
export interface ChartInfo {
  legend?: string[];
  markers?: number;
  clipped?: number;
  scale?: 'robust' | 'log' | 'fixed';
  /** seconds between the oldest and the newest point drawn (how much history the chart holds) */
  spanS?: number;
  /** seconds the x axis covers (the window): spanS near it means the data fills the chart */
  windowS?: number;
}

export interface TimeChartOptions {
  lines: LineSpec[];
  from: number;
  now: number;
  yFormat: (v: number) => string;
  /** durations or bytes on a linear axis: labelled in one unit at round steps (see drawAxes) */
  yKind?: AxisKind;
  yTitle: string;
  markers: Marker[];
  log?: boolean;
  /** smallest y maximum (a quiet chart still has a readable axis) */
  floor?: number;
  /** a fixed y domain (utilisation 0..1): no robust scaling */
  fixedMax?: number;
  emptyText: string;
  /** extra legend entries (e.g. "solid p99, dashed p50") */
  note?: string;
  /** a target the reader compares the lines with (a latency budget): a dashed line the y axis always reaches */
  target?: { v: number; label: string };
}

export function drawTimeChart(ctx: CanvasRenderingContext2D, w: number, h: number, th: ChartTheme, o: TimeChartOptions): ChartInfo {
  const values = o.lines.flatMap((l) => l.points.map((p) => p.v));
  if (values.length === 0) {
    drawEmpty(ctx, th, w, h, o.emptyText);
    return { legend: [], markers: drawMarkersOnly(ctx, th, w, h, o), clipped: 0 };
  }
  let domain: [number, number];
  let clipped = 0;
  let scale: ChartInfo['scale'] = 'robust';
  if (o.fixedMax !== undefined) {
    domain = [0, o.fixedMax];
    scale = 'fixed';
  } else if (o.log) {
    domain = logDomain(o.target ? [...values, o.target.v] : values, o.floor ? o.floor / 100 : 1);
    scale = 'log';
  } else {
    const r = robustMax(values, { floor: Math.max(o.floor ?? 0, o.target ? o.target.v * 1.15 : 0) });
    domain = [0, r.max];
    clipped = r.clipped;
  }
  const p = makePlot(ctx, w, h, th, [o.from, o.now], domain, undefined, scale === 'log');
  drawAxes(p, { yFormat: o.yFormat, yKind: o.yKind, xFormat: relativeSeconds(o.now), xRelativeTo: o.now, yTitle: o.yTitle });
  const markers = drawMarkers(p, o.markers, o.from, o.now);
  for (const l of o.lines) {
    if (l.fill) fillUnder(p, l);
    drawLine(p, l.points, (d) => d.t, (d) => d.v, l.colour, 2, l.dash);
  }
  if (clipped > 0) drawClipMarks(p, o.lines, domain[1]);
  if (o.target) drawTarget(p, o.target);
  // Only series with data in the window are named: nine idle versions listed a third of the chart away.
  const named = o.lines.filter((l) => l.inLegend !== false && l.points.some((d) => d.t >= o.from && d.t <= o.now));
  const legend = named.map((l) => l.label);
  drawLegend(ctx, th, named.map((l) => ({ label: l.label, colour: l.colour })), p.left + 6, p.top + 6, p.right);
  if (o.note || clipped > 0) {
    ctx.font = `${textPx(th, -1)}px ${th.font}`;
    ctx.fillStyle = th.muted;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'top';
    const text = [o.note, clipped > 0 ? `▲ ${S.chartWords.clipped(clipped)}` : ''].filter(Boolean).join(' · ');
    ctx.fillText(text, p.right, 1);
  }
  const ts = o.lines.flatMap((l) => l.points.map((d) => d.t));
  const spanS = (Math.max(...ts) - Math.min(...ts)) / 1e6;
  return { legend, markers, clipped, scale, spanS, windowS: (o.now - o.from) / 1e6 };
}

function fillUnder(p: Plot, l: LineSpec): void {
  const { ctx } = p;
  if (l.points.length < 2) return;
  ctx.save();
  ctx.beginPath();
  ctx.rect(p.left, p.top, p.right - p.left, p.bottom - p.top);
  ctx.clip();
  ctx.beginPath();
  ctx.moveTo(p.x(l.points[0].t), p.bottom);
  for (const d of l.points) ctx.lineTo(p.x(d.t), p.y(d.v));
  ctx.lineTo(p.x(l.points[l.points.length - 1].t), p.bottom);
  ctx.closePath();
  ctx.fillStyle = withAlpha(l.colour, 0.15);
  ctx.fill();
  ctx.restore();
}

/** A small triangle at the top edge over each value the robust axis cut off. */
function drawClipMarks(p: Plot, lines: LineSpec[], max: number): void {
  const { ctx } = p;
  for (const l of lines) {
    ctx.fillStyle = l.colour;
    for (const d of l.points) {
      if (d.v <= max) continue;
      const x = p.x(d.t);
      if (x < p.left || x > p.right) continue;
      ctx.beginPath();
      ctx.moveTo(x, p.top - 1);
      ctx.lineTo(x - 4, p.top + 6);
      ctx.lineTo(x + 4, p.top + 6);
      ctx.closePath();
      ctx.fill();
    }
  }
}

/** Dashed vertical lines at configuration changes inside the window; returns how many were drawn. */
export function drawMarkers(p: Plot, markers: Marker[], from: number, now: number): number {
  const { ctx, theme } = p;
  let n = 0;
  let labelEnd = -Infinity;
  ctx.save();
  ctx.font = `${textPx(theme, -2)}px ${theme.font}`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'bottom';
  for (const m of markers) {
    if (m.t < from || m.t > now) continue;
    const x = Math.round(p.x(m.t)) + 0.5;
    ctx.strokeStyle = theme.warn;
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(x, p.top);
    ctx.lineTo(x, p.bottom);
    ctx.stroke();
    // Labels that would overlap the previous one are left out (a sweep changes the config every second);
    // the line still marks the change.
    const lx = Math.min(x + 3, p.right - ctx.measureText(m.label).width);
    if (lx > labelEnd) {
      ctx.fillStyle = theme.warn;
      ctx.fillText(m.label, lx, p.bottom - 2);
      labelEnd = lx + ctx.measureText(m.label).width + 4;
    }
    n++;
  }
  ctx.restore();
  return n;
}

/** An empty chart still shows when the config changed (a plot frame with no data). */
function drawMarkersOnly(ctx: CanvasRenderingContext2D, th: ChartTheme, w: number, h: number, o: TimeChartOptions): number {
  if (o.markers.length === 0) return 0;
  return drawMarkers(makePlot(ctx, w, h, th, [o.from, o.now], [0, 1]), o.markers, o.from, o.now);
}

/** A horizontal dashed target line across the plot, labelled at its right end above the line. */
function drawTarget(p: Plot, target: { v: number; label: string }): void {
  const { ctx, theme } = p;
  const y = Math.round(p.y(target.v)) + 0.5;
  ctx.save();
  ctx.strokeStyle = theme.danger;
  ctx.lineWidth = 2;
  ctx.setLineDash([6, 4]);
  ctx.beginPath();
  ctx.moveTo(p.left, y);
  ctx.lineTo(p.right, y);
  ctx.stroke();
  ctx.font = `600 ${textPx(theme)}px ${theme.font}`;
  ctx.fillStyle = theme.danger;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'bottom';
  ctx.fillText(target.label, p.right - 4, y - 3);
  ctx.restore();
}
