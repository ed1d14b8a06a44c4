/**
 * One requestAnimationFrame loop for the whole page (excalidraw's throttleRAF idea): every canvas
 * registers a drawer, and each animation frame runs the drawers whose data moved or whose interval
 * elapsed. The loop also measures frames per second, exposed for the dashboard benchmark.
 */
import { exposeForTests } from '../platform/test-hooks';
export interface Drawer {
  /** return false to say "nothing changed, skip" */
  draw(nowMs: number): void;
  /** redraw at least this often even when data did not change (time axes scroll); 0 = every frame */
  minIntervalMs: number;
  dirty: () => boolean;
  lastDrawMs: number;
}

const drawers = new Set<Drawer>();
let running = false;
const frameTimes: number[] = [];

declare global {
  interface Window {
    /** the frame loop's rate and cost, for the dashboard bench (test-hooks.ts) */
    __inferscope?: { fps(): number; frames: number; drawMs: number };
  }
}

const stats = { frames: 0, drawMs: 0 };

function tick(nowMs: number): void {
  if (!running) return;
  stats.frames++;
  frameTimes.push(nowMs);
  while (frameTimes.length > 0 && frameTimes[0] < nowMs - 2000) frameTimes.shift();
  const t0 = performance.now();
  for (const d of drawers) {
    if (d.dirty() || nowMs - d.lastDrawMs >= d.minIntervalMs) {
      d.lastDrawMs = nowMs;
      try {
        d.draw(nowMs);
      } catch (err) {
        // One broken chart must not stop the others; report once per frame at most.
        console.warn('[inferscope] chart failed to draw', err);
      }
    }
  }
  stats.drawMs = stats.drawMs * 0.9 + (performance.now() - t0) * 0.1;
  requestAnimationFrame(tick);
}

export function registerDrawer(d: Omit<Drawer, 'lastDrawMs'>): () => void {
  const entry: Drawer = { ...d, lastDrawMs: -Infinity };
  drawers.add(entry);
  if (!running) {
    running = true;
    requestAnimationFrame(tick);
  }
  return () => {
    drawers.delete(entry);
  };
}

/** Frames per second over the last two seconds. */
export function measuredFps(): number {
  if (frameTimes.length < 2) return 0;
  return ((frameTimes.length - 1) * 1000) / (frameTimes[frameTimes.length - 1] - frameTimes[0]);
}

exposeForTests('__inferscope', {
  fps: measuredFps,
  get frames() {
    return stats.frames;
  },
  get drawMs() {
    return stats.drawMs;
  },
});
