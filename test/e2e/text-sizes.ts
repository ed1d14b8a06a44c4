/**
 * What a class sees, measured in the page: every canvas label as drawn (fillText recorded with its
 * rendered size: the font's px times the context's scale over the device pixel ratio, shrunk by
 * fillText's maxWidth when that compresses it) and every visible DOM/SVG text node with its rendered size.
 * `recordCanvasText` must run before the page's scripts (an init script).
 */
import type { BrowserContext, Page } from 'playwright-core';

export interface DrawnText { text: string; px: number; where: string }

declare global {
  interface Window { __drawnText?: DrawnText[] }
}

export async function recordCanvasText(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const proto = CanvasRenderingContext2D.prototype;
    const original = proto.fillText;
    window.__drawnText = [];
    proto.fillText = function (this: CanvasRenderingContext2D, text: string, x: number, y: number, maxWidth?: number) {
      const px = Number(/(\d+(?:\.\d+)?)px/.exec(this.font)?.[1] ?? 0);
      const m = this.getTransform();
      let size = (px * Math.hypot(m.a, m.b)) / (window.devicePixelRatio || 1);
      if (maxWidth !== undefined) {
        const natural = this.measureText(text).width;
        if (natural > maxWidth && natural > 0) size *= maxWidth / natural;
      }
      const where = this.canvas.closest('[data-testid]')?.getAttribute('data-testid') ?? 'canvas';
      if (String(text).trim()) window.__drawnText!.push({ text: String(text), px: size, where });
      return original.call(this, text, x, y, maxWidth);
    };
  });
}

/** Forget what was drawn so far (the next read holds one settled frame's worth and more). */
export const clearCanvasText = (page: Page) => page.evaluate(() => { window.__drawnText = []; });
export const canvasText = (page: Page): Promise<DrawnText[]> => page.evaluate(() => window.__drawnText ?? []);

/** Visible text nodes (not in <option>, <script>, <style>) with their rendered px (SVG scale included). */
export function domText(page: Page): Promise<DrawnText[]> {
  return page.evaluate(() => {
    const out: DrawnText[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = (n.textContent ?? '').trim();
      const el = n.parentElement;
      if (!text || !el || el.closest('option, script, style, title, details:not([open]) > :not(summary)')) continue;
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      if (r.width === 0 || r.height === 0 || cs.visibility === 'hidden' || cs.display === 'none' || r.bottom < 0 || r.top > innerHeight * 20) continue;
      let px = parseFloat(cs.fontSize);
      const svg = el.closest('svg');
      if (svg && el instanceof SVGElement) px *= (svg as SVGSVGElement).getScreenCTM()?.a ?? 1;
      out.push({ text, px, where: el.closest('[data-testid]')?.getAttribute('data-testid') ?? el.tagName.toLowerCase() });
    }
    return out;
  });
}

/** The share of characters drawn below `min` px, and the smallest few, for a readable failure. */
export function belowShare(items: DrawnText[], min: number): { share: number; small: string[] } {
  const total = items.reduce((n, t) => n + t.text.length, 0);
  const small = items.filter((t) => t.px < min - 0.01);
  const share = total ? small.reduce((n, t) => n + t.text.length, 0) / total : 0;
  return { share, small: [...new Set(small.map((t) => `${t.where} "${t.text.slice(0, 24)}" ${t.px.toFixed(1)}px`))].slice(0, 12) };
}
