/** React hook: a canvas sized to its box (device-pixel aware) redrawn through the shared frame loop. */
import { useEffect, useRef } from 'react';
import { registerDrawer } from './frame-loop';
import { live } from '../store/app-store';

import type { ChartInfo, MarkerHit } from './time-chart';

/** The markers each canvas drew last, for its hover text (see markerTipAt). */
const drawnHits = new WeakMap<HTMLCanvasElement, MarkerHit[]>();

/** The hover text of the marker nearest css x on a canvas (within a few pixels), if any. */
export function markerTipAt(canvas: HTMLCanvasElement, x: number): string | undefined {
  let best: MarkerHit | undefined;
  for (const h of drawnHits.get(canvas) ?? []) if (Math.abs(h.x - x) <= 4 && (!best || Math.abs(h.x - x) < Math.abs(best.x - x))) best = h;
  return best?.tip;
}

/** Options a card passes to its chart (the log toggle). */
export interface DrawOptions {
  log: boolean;
  /** the legend lists every series with data (clicked open), not the first few and "+N more" */
  legendAll: boolean;
}

/** Draws one frame; may say what it drew (legend, markers), which lands on the canvas's data-* attributes. */
export type DrawFn = (ctx: CanvasRenderingContext2D, width: number, height: number, opts: DrawOptions) => void | ChartInfo;

/** Mirrors what the chart drew into the DOM: tests and assistive tools cannot read a canvas. */
function publish(canvas: HTMLCanvasElement, info: void | ChartInfo): void {
  if (!info) return;
  const set = (k: string, v: string | undefined) => {
    if (v === undefined) delete canvas.dataset[k];
    else if (canvas.dataset[k] !== v) canvas.dataset[k] = v;
  };
  set('legend', info.legend?.join(' | '));
  set('markers', info.markers === undefined ? undefined : String(info.markers));
  set('clipped', info.clipped === undefined ? undefined : String(info.clipped));
  set('scale', info.scale);
  set('axes', info.axes?.join(' | '));
  set('legendMore', info.legendMore === undefined ? undefined : String(info.legendMore));
  set('spanS', info.spanS === undefined ? undefined : info.spanS.toFixed(1));
  set('windowS', info.windowS === undefined ? undefined : info.windowS.toFixed(2));
  set('autotuneMarkers', info.autotuneMarkers === undefined ? undefined : String(info.autotuneMarkers));
  set('guides', info.guides?.join(' | '));
  // where the markers are, so a test (or a tool) can point at one
  set('markerX', info.hits?.map((h) => Math.round(h.x)).join(','));
  if (info.hits) drawnHits.set(canvas, info.hits);
}

/** `rev`: a revision counter of the chart's own data, for charts not fed by the live model (the fleet view's). */
export function useCanvas(draw: DrawFn, opts: { minIntervalMs?: number; alwaysDirty?: boolean; log?: boolean; legendAll?: boolean; rev?: () => number } = {}) {
  const ref = useRef<HTMLCanvasElement | null>(null);
  const drawRef = useRef(draw);
  drawRef.current = draw;
  const logRef = useRef(false);
  logRef.current = opts.log ?? false;
  const legendRef = useRef(false);
  legendRef.current = opts.legendAll ?? false;
  const revRef = useRef(opts.rev);
  revRef.current = opts.rev;
  useEffect(() => {
    const canvas = ref.current;
    if (!canvas) return;
    let width = 0;
    let height = 0;
    let resized = true;
    const ro = new ResizeObserver(() => {
      resized = true;
    });
    ro.observe(canvas);
    let seenRev = -1;
    let seenLog = logRef.current;
    let seenOwn = -1;
    let seenLegend = legendRef.current;
    const own = () => revRef.current?.() ?? 0;
    const unregister = registerDrawer({
      minIntervalMs: opts.minIntervalMs ?? 100,
      dirty: () => resized || opts.alwaysDirty === true || live.rev !== seenRev || seenLog !== logRef.current || own() !== seenOwn || seenLegend !== legendRef.current,
      draw: () => {
        seenRev = live.rev;
        seenLog = logRef.current;
        seenOwn = own();
        seenLegend = legendRef.current;
        const dpr = window.devicePixelRatio || 1;
        if (resized) {
          const r = canvas.getBoundingClientRect();
          width = Math.max(1, Math.floor(r.width));
          height = Math.max(1, Math.floor(r.height));
          canvas.width = Math.floor(width * dpr);
          canvas.height = Math.floor(height * dpr);
          resized = false;
        }
        const ctx = canvas.getContext('2d');
        if (!ctx) return;
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.clearRect(0, 0, width, height);
        publish(canvas, drawRef.current(ctx, width, height, { log: logRef.current, legendAll: legendRef.current }));
      },
    });
    return () => {
      unregister();
      ro.disconnect();
    };
  }, [opts.minIntervalMs, opts.alwaysDirty]);
  return ref;
}
