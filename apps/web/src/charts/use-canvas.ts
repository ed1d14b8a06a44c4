/** React hook: a canvas sized to its box (device-pixel aware) redrawn through the shared frame loop. */
import { useEffect, useRef } from 'react';
import { registerDrawer } from './frame-loop';
import { live } from '../store/app-store';

export type DrawFn = (ctx: CanvasRenderingContext2D, width: number, height: number) => void;

export function useCanvas(draw: DrawFn, opts: { minIntervalMs?: number; alwaysDirty?: boolean } = {}) {
  const ref = useRef<HTMLCanvasElement | null>(null);
  const drawRef = useRef(draw);
  drawRef.current = draw;
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
    const unregister = registerDrawer({
      minIntervalMs: opts.minIntervalMs ?? 100,
      dirty: () => resized || opts.alwaysDirty === true || live.rev !== seenRev,
      draw: () => {
        seenRev = live.rev;
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
        drawRef.current(ctx, width, height);
      },
    });
    return () => {
      unregister();
      ro.disconnect();
    };
  }, [opts.minIntervalMs, opts.alwaysDirty]);
  return ref;
}
