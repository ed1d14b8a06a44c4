/**
 * Layout checks for projector sizes, run in the page: nothing wider than the viewport, the view and the
 * side panel side by side without overlap, nothing of the view under the side panel, header controls
 * apart from each other, no clipped button or table text, SVG labels apart and inside their picture, and
 * the data-flow canvas labels apart and not
 * squeezed (fillText's maxWidth compresses text that does not fit: past 75% it stops being readable).
 * Returns the problems found, in words.
 */
import type { Page } from 'playwright-core';
// the page's window.__inferscopeLabels (declared where the data-flow view defines it)
import type {} from '../../apps/web/src/views/DataView';

export async function layoutProblems(page: Page): Promise<string[]> {
  // tsx compiles named inner functions with esbuild's __name helper, which the page does not have
  await page.evaluate('window.__name = window.__name || ((f) => f)');
  return page.evaluate(() => {
    const out: string[] = [];
    const W = innerWidth;
    type R = { left: number; right: number; top: number; bottom: number };
    const overlap = (a: R, b: R, slack = 1) => a.left < b.right - slack && b.left < a.right - slack && a.top < b.bottom - slack && b.top < a.bottom - slack;
    const name = (e: Element) => `${e.tagName.toLowerCase()}${e.getAttribute('data-testid') ? `[${e.getAttribute('data-testid')}]` : ''} "${(e.textContent ?? '').trim().slice(0, 30)}"`;
    const visible = (e: Element) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    if (document.documentElement.scrollWidth > W + 1) out.push(`page is ${document.documentElement.scrollWidth}px wide in a ${W}px viewport`);
    const main = document.querySelector('.layout > main');
    const aside = document.querySelector('.layout > aside');
    if (main && aside) {
      const m = main.getBoundingClientRect();
      const a = aside.getBoundingClientRect();
      if (overlap(m, a)) out.push('the view and the side panel overlap');
      const sideBySide = a.left >= m.right - 1;
      for (const e of main.querySelectorAll('.card, .arch-cell, canvas, table, [data-testid=lesson-knob] *')) {
        if (!visible(e)) continue;
        const r = e.getBoundingClientRect();
        if (r.right > W + 1 || r.left < -1) out.push(`${name(e)} is outside the viewport (${Math.round(r.left)}..${Math.round(r.right)})`);
        else if (sideBySide && r.right > a.left + 1) out.push(`${name(e)} reaches under the side panel (${Math.round(r.right)} > ${Math.round(a.left)})`);
      }
    }
    const controls = [...document.querySelectorAll('.header button, .header select, .header h1, [data-testid=connection]')].filter(visible);
    for (const e of controls) {
      const r = e.getBoundingClientRect();
      if (r.right > W + 1 || r.left < -1) out.push(`header ${name(e)} is outside the viewport`);
    }
    for (let i = 0; i < controls.length; i++) {
      for (let j = i + 1; j < controls.length; j++) {
        if (controls[i].contains(controls[j]) || controls[j].contains(controls[i])) continue;
        if (overlap(controls[i].getBoundingClientRect(), controls[j].getBoundingClientRect())) out.push(`header ${name(controls[i])} overlaps ${name(controls[j])}`);
      }
    }
    for (const e of document.querySelectorAll('button, .badge, td, th')) {
      if (!visible(e)) continue;
      const el = e as HTMLElement;
      if (el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).overflowX !== 'visible') out.push(`${name(e)} is clipped (${el.scrollWidth} > ${el.clientWidth})`);
    }
    const svgText = [...document.querySelectorAll('svg text')].filter(visible);
    for (let i = 0; i < svgText.length; i++) {
      const a = svgText[i].getBoundingClientRect();
      const box = svgText[i].closest('svg')!.getBoundingClientRect();
      if (a.left < box.left - 1 || a.right > box.right + 1) out.push(`svg label ${name(svgText[i])} leaves its picture`);
      for (let j = i + 1; j < svgText.length; j++) {
        if (overlap(a, svgText[j].getBoundingClientRect())) out.push(`svg labels collide: ${name(svgText[i])} / ${name(svgText[j])}`);
      }
    }
    const labels = window.__inferscopeLabels?.() ?? [];
    const canvas = document.querySelector('[data-testid=chart-dataflow] canvas');
    const cw = canvas ? canvas.getBoundingClientRect().width : Infinity;
    for (let i = 0; i < labels.length; i++) {
      const a = labels[i];
      if (a.x1 - a.x0 < 0.75 * a.natural) out.push(`canvas label "${a.text}" is squeezed to ${Math.round(((a.x1 - a.x0) / a.natural) * 100)}% of its width`);
      if (a.x0 < -1 || a.x1 > cw + 1) out.push(`canvas label "${a.text}" leaves the canvas (${Math.round(a.x0)}..${Math.round(a.x1)} of ${Math.round(cw)})`);
      for (let j = i + 1; j < labels.length; j++) {
        const b = labels[j];
        if (overlap({ left: a.x0, right: a.x1, top: a.y0, bottom: a.y1 }, { left: b.x0, right: b.x1, top: b.y0, bottom: b.y1 }, 1)) out.push(`canvas labels collide: "${a.text}" / "${b.text}"`);
      }
    }
    return [...new Set(out)];
  });
}
