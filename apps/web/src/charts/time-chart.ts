/**
 * One drawing routine for every time chart of the Performance view: one line per series (model version or
 * percentile) with a legend, a y axis scaled to the typical value (robust) or logarithmic, spikes that
 * the robust axis clips marked at the top edge, and a vertical marker at each configuration change.
 */
import { textPx, type ChartTheme } from './theme';
import type { AxisKind } from './format';
import { drawAxes, drawEmpty, drawLegend, drawLine, fitText, makePlot, relativeSeconds, withAlpha, type Plot } from './draw';
import { logDomain, robustMax, type SeriesPoint } from './series';
import { S } from '../i18n/strings';

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
  /** the longer text shown on hover (an autotune decision's reason) */
  tip?: string;
  /** made by the autotuner: drawn in the accent colour, so a tuner's change and a person's differ at a glance */
  autotune?: boolean;
}

/** Where a marker was drawn (css px from the canvas's left edge), for hover text. */
export interface MarkerHit {
  x: number;
  tip: string;
}

/** A horizontal reference line (the autotuner's p99 target). */
export interface Guide {
  v: number;
  label: string;
  colour: string;
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
  /** the y scales drawn, left first ("inferences/s | p99 latency (ms)"), when a chart has more than one */
  axes?: string[];
  /** series with data left out of the legend behind "+N more" (0: all named) */
  legendMore?: number;
  /** markers drawn by the autotuner */
  autotuneMarkers?: number;
  /** the markers' places and hover texts */
  hits?: MarkerHit[];
  /** labels of the reference lines drawn */
  guides?: string[];
}

/** Legend entries named before "+N more" (a click on the chart lists them all). */
export const LEGEND_LIMIT = 4;

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
  /** list every series with data in the legend (the chart was clicked open) */
  legendAll?: boolean;
  /** extra legend entries (e.g. "solid p99, dashed p50") */
  note?: string;
  /** horizontal reference lines, kept inside the y domain */
  guides?: Guide[];
}

export function drawTimeChart(ctx: CanvasRenderingContext2D, w: number, h: number, th: ChartTheme, o: TimeChartOptions): ChartInfo {
  const values = o.lines.flatMap((l) => l.points.map((p) => p.v));
  if (values.length === 0) {
    drawEmpty(ctx, th, w, h, o.emptyText);
    const hits: MarkerHit[] = [];
    return { legend: [], markers: drawMarkersOnly(ctx, th, w, h, o, hits), clipped: 0, ...markerInfo(o.markers, hits) };
  }
  let domain: [number, number];
  let clipped = 0;
  let scale: ChartInfo['scale'] = 'robust';
  if (o.fixedMax !== undefined) {
    domain = [0, o.fixedMax];
    scale = 'fixed';
  } else if (o.log) {
    domain = logDomain([...values, ...(o.guides ?? []).map((g) => g.v)], o.floor ? o.floor / 100 : 1);
    scale = 'log';
  } else {
    // a reference line stays in view: the axis reaches a little above it
    const guideTop = Math.max(0, ...(o.guides ?? []).map((g) => g.v * 1.15));
    const r = robustMax(values, { floor: Math.max(o.floor ?? 0, guideTop) });
    domain = [0, r.max];
    clipped = r.clipped;
  }
  const p = makePlot(ctx, w, h, th, [o.from, o.now], domain, undefined, scale === 'log');
  drawAxes(p, { yFormat: o.yFormat, yKind: o.yKind, xFormat: relativeSeconds(o.now), xRelativeTo: o.now, yTitle: o.yTitle });
  const hits: MarkerHit[] = [];
  const markers = drawMarkers(p, o.markers, o.from, o.now, hits);
  const guides = (o.guides ?? []).filter((g) => drawGuide(p, g, domain));
  for (const l of o.lines) {
    if (l.fill) fillUnder(p, l);
    drawLine(p, l.points, (d) => d.t, (d) => d.v, l.colour, 2, l.dash);
  }
  if (clipped > 0) drawClipMarks(p, o.lines, domain[1]);
  // Only series with data in the window are named: nine idle versions listed a third of the chart away.
  const withData = o.lines.filter((l) => l.inLegend !== false && l.points.some((d) => d.t >= o.from && d.t <= o.now));
  // Many series would cover the lines with their legend: the first few, then "+N more" (click: all).
  const cut = !o.legendAll && withData.length > LEGEND_LIMIT + 1;
  const named = cut ? withData.slice(0, LEGEND_LIMIT) : withData;
  const legendMore = withData.length - named.length;
  const legend = named.map((l) => l.label);
  const entries = named.map((l) => ({ label: l.label, colour: l.colour }));
  if (legendMore > 0) entries.push({ label: S.legendMore(legendMore), colour: 'transparent' });
  drawLegend(ctx, th, entries, p.left + 6, p.top + 6, p.right);
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
  return { legend, markers, clipped, scale, spanS, windowS: (o.now - o.from) / 1e6, ...markerInfo(o.markers, hits), guides: guides.map((g) => g.label), legendMore };
}

function markerInfo(markers: Marker[], hits: MarkerHit[]): Pick<ChartInfo, 'autotuneMarkers' | 'hits'> {
  return { autotuneMarkers: markers.filter((m) => m.autotune).length, hits };
}

/** A dashed horizontal line with its label at the right end; false when it lies outside the domain. */
function drawGuide(p: Plot, g: Guide, domain: [number, number]): boolean {
  if (!(g.v > domain[0] && g.v <= domain[1])) return false;
  const { ctx, theme } = p;
  const y = Math.round(p.y(g.v)) + 0.5;
  ctx.save();
  ctx.strokeStyle = g.colour;
  ctx.lineWidth = 1.5;
  ctx.setLineDash([6, 4]);
  ctx.beginPath();
  ctx.moveTo(p.left, y);
  ctx.lineTo(p.right, y);
  ctx.stroke();
  ctx.font = `600 ${textPx(theme, -2)}px ${theme.font}`;
  ctx.fillStyle = g.colour;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'bottom';
  ctx.fillText(g.label, p.right - 2, y - 2);
  ctx.restore();
  return true;
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
export function drawMarkers(p: Plot, markers: Marker[], from: number, now: number, hits?: MarkerHit[]): number {
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
    const colour = m.autotune ? theme.accent : theme.warn;
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(x, p.top);
    ctx.lineTo(x, p.bottom);
    ctx.stroke();
    // The label runs up along its line, from just above the x axis: lying flat at the axis it covered the
    // "0" tick and the y labels. Labels that would overlap the previous one are left out (a sweep changes
    // the config every second); the line still marks the change, and its hover text says what changed.
    const fs = textPx(theme, -2);
    const label = fitText(ctx, m.label, p.bottom - p.top - 6);
    const right = x + 3 + fs <= p.right;
    const lx = right ? x + 3 : x - 3 - fs;
    if (lx > labelEnd && lx >= p.left) {
      ctx.save();
      ctx.fillStyle = colour;
      ctx.translate(right ? x + 3 : x - 3, p.bottom - 3);
      ctx.rotate(-Math.PI / 2);
      ctx.textBaseline = right ? 'top' : 'bottom';
      ctx.fillText(label, 0, 0);
      ctx.restore();
      labelEnd = lx + fs + 2;
    }
    hits?.push({ x, tip: m.tip ?? m.label });
    n++;
  }
  ctx.restore();
  return n;
}

/** An empty chart still shows when the config changed (a plot frame with no data). */
function drawMarkersOnly(ctx: CanvasRenderingContext2D, th: ChartTheme, w: number, h: number, o: TimeChartOptions, hits: MarkerHit[]): number {
  if (o.markers.length === 0) return 0;
  return drawMarkers(makePlot(ctx, w, h, th, [o.from, o.now], [0, 1]), o.markers, o.from, o.now, hits);
}

