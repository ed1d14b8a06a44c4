/** Geometry and small drawing helpers shared by the parts of the Data view's canvas. */
import type { LiveModel } from '../store/live-model';
import type { ModelLive, RequestLive } from '../store/live-types';
import type { ChartTheme } from '../charts/theme';
import { modelColour, priorityColour } from '../charts/theme';
import { fitText, withAlpha } from '../charts/draw';

/** x positions of the five stages, computed once per frame from the canvas width */
export interface Columns {
  arrive: number;
  qStart: number;
  qEnd: number;
  batcher: number;
  batcherW: number;
  inst: number;
  instW: number;
  out: number;
}

/** In-flight requests of one model, grouped by phase (queued per priority, batched per batch, running per instance). */
export interface Groups {
  queued: Map<number, RequestLive[]>;
  batched: Map<string, RequestLive[]>;
  running: Map<string, RequestLive[]>;
}

/** Everything one model row's parts need to draw. */
export interface RowCtx {
  ctx: CanvasRenderingContext2D;
  th: ChartTheme;
  live: LiveModel;
  m: ModelLive;
  g: Groups;
  X: Columns;
  /** the drawable band of this row (below the column headers) */
  top: number;
  bottom: number;
  mid: number;
  now: number;
  anim: number;
  colourOf: (r: RequestLive) => string;
  /** request dots of this row, filled in one go at the end of the row */
  dots: DotBatch;
}

export const ease = (x: number): number => (x >= 1 ? 1 : x <= 0 ? 0 : 1 - (1 - x) * (1 - x) * (1 - x));
export const lerp = (a: number, b: number, k: number): number => a + (b - a) * k;

export function colourFn(m: ModelLive, colourBy: 'model' | 'priority'): (r: RequestLive) => string {
  const mc = modelColour(m.colour);
  return colourBy === 'priority' ? (r) => priorityColour(r.priority) : () => mc;
}

export function dot(ctx: CanvasRenderingContext2D, x: number, y: number, colour: string, radius = 4, alpha = 1): void {
  ctx.fillStyle = alpha < 1 ? withAlpha(colour, alpha) : colour;
  ctx.beginPath();
  ctx.arc(x, y, radius, 0, Math.PI * 2);
  ctx.fill();
}

/**
 * Collects dots and fills all dots of one colour and alpha with a single path. Hundreds of requests
 * are on screen under load; a fill per dot (and a colour string parse per dot) cost the frame rate.
 * Alpha is rounded to tenths so fading dots still share paths.
 */
export class DotBatch {
  private paths = new Map<string, number[]>();
  private squares = new Map<string, number[]>();
  /** `square`: a request that came in over gRPC (circles: HTTP or in process), so the protocol reads at a glance */
  add(colour: string, x: number, y: number, radius = 4, alpha = 1, square = false): void {
    const a = Math.round(Math.max(0, Math.min(1, alpha)) * 10);
    if (a === 0) return;
    const key = a === 10 ? colour : withAlpha(colour, a / 10);
    const into = square ? this.squares : this.paths;
    const list = into.get(key);
    if (list) list.push(x, y, radius);
    else into.set(key, [x, y, radius]);
  }
  flush(ctx: CanvasRenderingContext2D): void {
    for (const [colour, xs] of this.paths) {
      ctx.fillStyle = colour;
      ctx.beginPath();
      for (let i = 0; i < xs.length; i += 3) {
        ctx.moveTo(xs[i] + xs[i + 2], xs[i + 1]);
        ctx.arc(xs[i], xs[i + 1], xs[i + 2], 0, Math.PI * 2);
      }
      ctx.fill();
    }
    for (const [colour, xs] of this.squares) {
      ctx.fillStyle = colour;
      ctx.beginPath();
      // the same area as the circle, so a square does not look like a bigger request
      for (let i = 0; i < xs.length; i += 3) {
        const half = xs[i + 2] * 0.886;
        ctx.rect(xs[i] - half, xs[i + 1] - half, half * 2, half * 2);
      }
      ctx.fill();
    }
    this.paths.clear();
    this.squares.clear();
  }
}

export function roundRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number): void {
  ctx.beginPath();
  // a squeezed row can ask for a box of no height: roundRect throws on a negative radius, and the
  // exception stopped the whole frame after the first model
  ctx.roundRect(x, y, Math.max(0, w), Math.max(0, h), Math.max(0, Math.min(r, w / 2, h / 2)));
}

/** A label drawn in the last data-flow frame, in canvas pixels (for the layout tests: labels must not collide). */
/** `natural` is the width the text wanted: fillText squeezes it into maxW, which past a point is unreadable. */
export interface DrawnLabel { text: string; x0: number; x1: number; y0: number; y1: number; natural: number }
export const drawnLabels: DrawnLabel[] = [];

export function text(
  ctx: CanvasRenderingContext2D, th: ChartTheme, s: string, x: number, y: number,
  o: { colour?: string; align?: CanvasTextAlign; base?: CanvasTextBaseline; size?: number; weight?: number; maxW?: number } = {},
): void {
  const size = o.size ?? th.fontSize;
  ctx.font = `${o.weight ?? 400} ${size}px ${th.font}`;
  ctx.fillStyle = o.colour ?? th.fg;
  ctx.textAlign = o.align ?? 'left';
  ctx.textBaseline = o.base ?? 'middle';
  // Past its room a label is cut with an ellipsis, never compressed: fillText's maxWidth squeezes the
  // glyphs below the type scale's floor (large type must stay large).
  if (s && o.maxW !== undefined) s = fitText(ctx, s, o.maxW);
  ctx.fillText(s, x, y);
  if (!s) return;
  const natural = ctx.measureText(s).width;
  const w = natural;
  const x0 = ctx.textAlign === 'right' ? x - w : ctx.textAlign === 'center' ? x - w / 2 : x;
  const y0 = ctx.textBaseline === 'middle' ? y - size / 2 : ctx.textBaseline === 'top' ? y : y - size;
  drawnLabels.push({ text: s, x0, x1: x0 + w, y0, y1: y0 + size, natural });
}

/** A horizontal bar with a filled fraction (0..1), used for the batch fill and the delay countdown. */
export function gauge(ctx: CanvasRenderingContext2D, th: ChartTheme, x: number, y: number, w: number, h: number, frac: number, colour: string): void {
  roundRect(ctx, x, y, w, h, h / 2);
  ctx.fillStyle = withAlpha(th.grid, 0.9);
  ctx.fill();
  const f = Math.max(0, Math.min(1, frac));
  if (f > 0) {
    roundRect(ctx, x, y, Math.max(h, w * f), h, h / 2);
    ctx.fillStyle = colour;
    ctx.fill();
  }
}

export function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}


/**
 * Column headers along one line: each wants its anchor (left, centre or right aligned), but none may
 * overlap its neighbour or leave [0, width]. Returns each header's left edge: pushed right past the one
 * before, then pulled left before the one after and the canvas's end (large type widens them all).
 */
export function spreadHeaders(items: { x: number; align: CanvasTextAlign; w: number }[], width: number, gap = 12): number[] {
  const left = items.map((it) => Math.max(0, it.align === 'right' ? it.x - it.w : it.align === 'center' ? it.x - it.w / 2 : it.x));
  for (let i = 1; i < left.length; i++) left[i] = Math.max(left[i], left[i - 1] + items[i - 1].w + gap);
  for (let i = left.length - 1; i >= 0; i--) {
    const limit = i === left.length - 1 ? width : left[i + 1] - gap;
    left[i] = Math.max(0, Math.min(left[i], limit - items[i].w));
  }
  return left;
}
