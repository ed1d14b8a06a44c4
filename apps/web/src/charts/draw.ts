/** Small canvas drawing primitives shared by the charts: plot frame, axes, lines, areas, bars, dots. */
import { line, area, scaleLog, type ScaleContinuousNumeric, type ScaleLinear } from 'd3';
import { textPx, type ChartTheme } from './theme';
import { linear } from './scales';
import { S } from '../i18n/strings';
import { axisLabel, axisUnit, formatUs, type AxisKind } from './format';

export interface Plot {
  ctx: CanvasRenderingContext2D;
  x: ScaleLinear<number, number>;
  y: ScaleContinuousNumeric<number, number>;
  /** the y axis is logarithmic (ticks at powers of ten) */
  yLog?: boolean;
  left: number;
  top: number;
  right: number;
  bottom: number;
  theme: ChartTheme;
}

export function makePlot(
  ctx: CanvasRenderingContext2D, width: number, height: number, theme: ChartTheme,
  xDomain: [number, number], yDomain: [number, number], m?: { l: number; r: number; t: number; b: number }, yLog = false,
): Plot {
  // Margins follow the label size, so large type (projector mode) does not clip the axis labels.
  const f = theme.fontSize;
  const margin = m ?? { l: Math.max(44, f * 4.4), r: 10, t: f + 6, b: f + 10 };
  const left = margin.l, top = margin.t, right = width - margin.r, bottom = height - margin.b;
  const y = yLog ? scaleLog().domain(yDomain).range([bottom, top]).clamp(true) : linear(yDomain, [bottom, top]);
  return { ctx, theme, left, top, right, bottom, yLog, x: linear(xDomain, [left, right]), y };
}

/** Ticks of a linear domain computed in one unit (round steps there), with their labels. */
export function ticksInUnit(domain: [number, number], kind: AxisKind, count: number): { ticks: number[]; label: (v: number) => string } {
  const unit = axisUnit(kind, Math.max(Math.abs(domain[0]), Math.abs(domain[1])));
  const scaled = linear([domain[0] / unit.divisor, domain[1] / unit.divisor], [0, 1]).ticks(count);
  const step = scaled.length > 1 ? scaled[1] - scaled[0] : 1;
  return { ticks: scaled.map((v) => v * unit.divisor), label: (v) => axisLabel(v, unit, step) };
}

export function drawAxes(
  p: Plot,
  opts: {
    yFormat: (v: number) => string;
    /** a linear y axis of durations or bytes: ticks at round steps of ONE unit, each label in it */
    yKind?: AxisKind;
    xFormat?: (v: number) => string; xTicks?: number; yTicks?: number; xRelativeTo?: number; xTitle?: string; yTitle?: string;
  },
): void {
  const { ctx, theme } = p;
  ctx.font = `${theme.fontSize}px ${theme.font}`;
  ctx.lineWidth = 1;
  ctx.strokeStyle = theme.grid;
  ctx.fillStyle = theme.muted;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  const unitTicks = !p.yLog && opts.yKind ? ticksInUnit(p.y.domain() as [number, number], opts.yKind, opts.yTicks ?? 4) : undefined;
  const yTicks = unitTicks?.ticks ?? (p.yLog ? p.y.ticks().filter((v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9) : p.y.ticks(opts.yTicks ?? 4));
  const yLabel = unitTicks?.label ?? opts.yFormat;
  for (const v of yTicks) {
    const y = Math.round(p.y(v)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(p.left, y);
    ctx.lineTo(p.right, y);
    ctx.stroke();
    // The lowest label is lifted clear of the first x label ("0 µs" beside "-30 s").
    ctx.fillText(yLabel(v), p.left - 5, opts.xFormat ? Math.min(y, p.bottom - theme.fontSize / 2) : y);
  }
  if (opts.xFormat) {
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    // Time axes tick at round offsets from now ("-20 s", "-10 s"), not at round absolute times.
    const base = opts.xRelativeTo ?? 0;
    const [d0, d1] = p.x.domain();
    const fit = Math.max(2, Math.floor((p.right - p.left) / (theme.fontSize * 6))); // labels must not touch
    const ticks = linear([d0 - base, d1 - base], [0, 1]).ticks(Math.min(opts.xTicks ?? 5, fit)).map((v) => v + base);
    const canvasW = ctx.canvas.clientWidth || p.right + 10;
    for (const v of ticks) {
      // Keep the outermost labels inside the canvas instead of clipping them ("300 ms" at the right edge).
      const label = opts.xFormat(v);
      const half = ctx.measureText(label).width / 2;
      const x = Math.min(canvasW - 2 - half, Math.max(half + 2, p.x(v)));
      ctx.fillText(label, x, p.bottom + 4);
    }
  }
  drawAxisTitles(p, opts.xTitle, opts.yTitle);
}

/**
 * A second y scale on the right edge for a second quantity (latency beside throughput): its own ticks in
 * one unit, labels right of the plot, no grid (the left axis owns the grid), its title at the top right.
 * Give the plot a right margin as wide as the left one (makePlot's `m`).
 */
export function drawRightAxis(p: Plot, kind: AxisKind, title: string, count = 4): void {
  const { ctx, theme } = p;
  const { ticks, label } = ticksInUnit(p.y.domain() as [number, number], kind, count);
  ctx.font = `${theme.fontSize}px ${theme.font}`;
  ctx.fillStyle = theme.muted;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const v of ticks) ctx.fillText(label(v), p.right + 5, Math.min(Math.round(p.y(v)), p.bottom - theme.fontSize / 2));
  ctx.font = `${theme.fontSize - 1}px ${theme.font}`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'top';
  ctx.fillText(title, ctx.canvas.clientWidth || p.right + 40, 1);
}

/**
 * Axis titles, both in the band above the plot: the y title over the y labels on the left, the x title
 * on the right (time axes need none: their ticks read "-20 s … now"). Small and muted, so they label
 * without competing with the data.
 */
export function drawAxisTitles(p: Plot, xTitle?: string, yTitle?: string): void {
  const { ctx, theme } = p;
  ctx.font = `${textPx(theme, -1)}px ${theme.font}`;
  ctx.fillStyle = theme.muted;
  if (yTitle) {
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(yTitle, 2, 1);
  }
  if (xTitle) {
    // Top right, in the same band as the y title: inside the plot it would sit on the data.
    ctx.textAlign = 'right';
    ctx.textBaseline = 'top';
    ctx.fillText(`x: ${xTitle}`, p.right, 1);
  }
}

/** Time axis labels relative to now: "-20 s", "-300 ms", "now". */
export const relativeSeconds = (nowUs: number) => (t: number): string => {
  const d = t - nowUs;
  return Math.abs(d) < 1 ? S.chartWords.now : formatUs(d).replace(/\.0+ /, ' ');
};

export function drawLine<T>(p: Plot, data: T[], xOf: (d: T) => number, yOf: (d: T) => number, colour: string, width = 2, dash?: number[]): void {
  const { ctx } = p;
  ctx.save();
  ctx.beginPath();
  ctx.rect(p.left, p.top - 2, p.right - p.left, p.bottom - p.top + 4);
  ctx.clip();
  ctx.beginPath();
  line<T>().x((d) => p.x(xOf(d))).y((d) => p.y(yOf(d))).context(ctx)(data);
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.setLineDash(dash ?? []);
  ctx.lineJoin = 'round';
  ctx.stroke();
  ctx.restore();
}

export function drawArea<T>(p: Plot, data: T[], xOf: (d: T) => number, y0: (d: T) => number, y1: (d: T) => number, colour: string): void {
  const { ctx } = p;
  ctx.save();
  ctx.beginPath();
  ctx.rect(p.left, p.top, p.right - p.left, p.bottom - p.top);
  ctx.clip();
  ctx.beginPath();
  area<T>().x((d) => p.x(xOf(d))).y0((d) => p.y(y0(d))).y1((d) => p.y(y1(d))).context(ctx)(data);
  ctx.fillStyle = colour;
  ctx.fill();
  ctx.restore();
}

/** Swatch + label entries left to right; past `maxX` (when given) they wrap onto the next line. */
export function drawLegend(ctx: CanvasRenderingContext2D, theme: ChartTheme, items: { label: string; colour: string }[], x: number, y: number, maxX?: number): void {
  ctx.font = `${theme.fontSize}px ${theme.font}`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  let cx = x;
  for (const it of items) {
    const width = 22 + ctx.measureText(it.label).width;
    if (maxX !== undefined && cx > x && cx + width - 8 > maxX) {
      cx = x;
      y += theme.fontSize + 4;
    }
    ctx.fillStyle = it.colour;
    ctx.fillRect(cx, y - 4, 10, 8);
    ctx.fillStyle = theme.fg;
    ctx.fillText(it.label, cx + 14, y);
    cx += width;
  }
}

export function drawEmpty(ctx: CanvasRenderingContext2D, theme: ChartTheme, width: number, height: number, text: string): void {
  ctx.font = `${textPx(theme, 1)}px ${theme.font}`;
  ctx.fillStyle = theme.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  // wrapped to the chart's width (a narrow card with large type clipped it to "aiting for the first sta")
  const lines = wrapText(ctx, text, Math.max(1, width - 16));
  const lineH = textPx(theme, 1) * 1.3;
  lines.forEach((line, i) => ctx.fillText(line, width / 2, height / 2 + (i - (lines.length - 1) / 2) * lineH));
}

/** `s` as it fits in `maxW` at the context's font: whole, or cut with "…" (at least one character). */
export function fitText(ctx: Pick<CanvasRenderingContext2D, 'measureText'>, s: string, maxW: number): string {
  if (ctx.measureText(s).width <= maxW) return s;
  let lo = 1;
  let hi = s.length - 1;
  // the longest prefix whose "prefix…" fits (binary search: measureText is the cost)
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ctx.measureText(`${s.slice(0, mid)}…`).width <= maxW) lo = mid;
    else hi = mid - 1;
  }
  return `${s.slice(0, lo)}…`;
}

/** Lines of `text` no wider than `maxWidth`: broken at spaces, or between characters where it has none (Chinese). */
export function wrapText(ctx: CanvasRenderingContext2D, text: string, maxWidth: number): string[] {
  const words = text.includes(' ') ? text.split(' ') : [...text];
  const sep = text.includes(' ') ? ' ' : '';
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    const next = line ? line + sep + w : w;
    if (line && ctx.measureText(next).width > maxWidth) {
      lines.push(line);
      line = w;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

export function withAlpha(hex: string, alpha: number): string {
  if (!hex.startsWith('#') || hex.length !== 7) return hex;
  const a = Math.round(Math.max(0, Math.min(1, alpha)) * 255).toString(16).padStart(2, '0');
  return `${hex}${a}`;
}
