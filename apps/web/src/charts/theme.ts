/** Colours for canvas drawing, read from the CSS custom properties of the current theme. */
import { schemeTableau10 } from 'd3';

export interface ChartTheme {
  fg: string;
  muted: string;
  grid: string;
  bg: string;
  panel: string;
  accent: string;
  danger: string;
  warn: string;
  ok: string;
  font: string;
  /** the charts' body text size, in px (from the root size: large type scales it) */
  fontSize: number;
  /** the smallest text any chart may draw, in px: the page's `--type-min` (16 px with large type) */
  minFont: number;
}

/**
 * A chart text size `delta` px from the body size, never below the page's floor: smaller labels (axis
 * titles, slot numbers) shrink only while there is room above the floor, so large type reaches them too.
 */
export const textPx = (th: Pick<ChartTheme, 'fontSize' | 'minFont'>, delta = 0): number => Math.max(th.minFont, th.fontSize + delta);

let cache: { key: string; theme: ChartTheme } | undefined;

export function chartTheme(): ChartTheme {
  const root = document.documentElement;
  const key = root.className;
  if (cache?.key === key) return cache.theme;
  const css = getComputedStyle(root);
  const v = (name: string, def: string) => css.getPropertyValue(name).trim() || def;
  const fontSize = parseFloat(css.fontSize) || 16;
  // The one type scale: index.css sets the root size and the floor (--type-min); DOM text and canvases read both.
  const minFont = parseFloat(css.getPropertyValue('--type-min')) || 0;
  const theme: ChartTheme = {
    fg: v('--c-fg', '#0f172a'), muted: v('--c-muted', '#64748b'), grid: v('--c-grid', '#e2e8f0'), bg: v('--c-bg', '#fff'),
    panel: v('--c-panel', '#fff'), accent: v('--c-accent', '#4f46e5'), danger: v('--c-danger', '#dc2626'),
    warn: v('--c-warn', '#d97706'), ok: v('--c-ok', '#059669'),
    font: 'ui-sans-serif, system-ui, sans-serif', fontSize: Math.max(minFont, Math.round(fontSize * 0.72)), minFont,
  };
  cache = { key, theme };
  return theme;
}

/**
 * Tableau 10 reordered so neighbours differ in hue: model versions are listed side by side (v1, v2 of one
 * model get consecutive indices), and in d3's order teal and green were neighbours (two versions looked
 * alike on every chart).
 */
export const MODEL_PALETTE: readonly string[] = [0, 1, 4, 2, 6, 5, 3, 7, 9, 8].map((i) => schemeTableau10[i]);

/** Stable colour per model (palette index) and per priority level (1 = most urgent = warm). */
export const modelColour = (i: number): string => MODEL_PALETTE[i % MODEL_PALETTE.length];
const PRIORITY = ['#e11d48', '#f59e0b', '#0ea5e9', '#8b5cf6', '#10b981', '#64748b'];
export const priorityColour = (level: number): string => PRIORITY[Math.max(0, level - 1) % PRIORITY.length];
export const TRIGGER_COLOUR: Record<string, string> = {
  preferred: '#10b981', max_batch: '#6366f1', delay: '#f59e0b', immediate: '#64748b', shape: '#ec4899', drain: '#ef4444',
};
