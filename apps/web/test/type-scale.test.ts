/**
 * The type scale's pure parts: chart text never goes below the page's floor (large type: 16 px, however
 * much smaller a label asks to be), a label too long for its room is cut with an ellipsis instead of
 * squeezed, and column headers that want overlapping places are spread apart inside the canvas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textPx } from '../src/charts/theme';
import { spreadHeaders } from '../src/views/data-flow-shared';
import { fitText } from '../src/charts/draw';

test('textPx keeps every size at or above the floor and leaves room above it alone', () => {
  const large = { fontSize: 16, minFont: 16 };
  for (const d of [-3, -2, -1, 0]) assert.equal(textPx(large, d), 16);
  assert.equal(textPx(large, 2), 18);
  const normal = { fontSize: 11, minFont: 9 };
  assert.equal(textPx(normal, -1), 10);
  assert.equal(textPx(normal, -4), 9);
});

// a monospace stand-in for the canvas: 10 px per character
const ctx = { measureText: (s: string) => ({ width: s.length * 10 }) as TextMetrics };

test('fitText keeps what fits and cuts the rest with an ellipsis that fits', () => {
  assert.equal(fitText(ctx, 'mlp', 30), 'mlp');
  const cut = fitText(ctx, 'mlp_classifier_0_0', 80);
  assert.equal(cut, 'mlp_cla…');
  assert.ok(ctx.measureText(cut).width <= 80);
  assert.equal(fitText(ctx, 'abcdef', 5), 'a…', 'at least one character');
});

test('spreadHeaders: neighbours never overlap and all stay inside the width when they fit', () => {
  // ARRIVALS at the left edge, PRIORITY QUEUES centred too close to it (large type), the rest in place
  const items = [
    { x: 4, align: 'left' as const, w: 80 }, { x: 60, align: 'center' as const, w: 150 },
    { x: 400, align: 'center' as const, w: 75 }, { x: 600, align: 'center' as const, w: 90 }, { x: 776, align: 'right' as const, w: 95 },
  ];
  const left = spreadHeaders(items, 776);
  for (let i = 1; i < items.length; i++) assert.ok(left[i] >= left[i - 1] + items[i - 1].w + 12, `header ${i} clears header ${i - 1}`);
  assert.ok(left[0] >= 0 && left[items.length - 1] + items[items.length - 1].w <= 776);
  assert.equal(left[2], 400 - 75 / 2, 'a header with room keeps its anchor');
  // crowded at the right end: pulled back left instead of leaving the canvas
  const right = spreadHeaders([{ x: 700, align: 'center', w: 100 }, { x: 760, align: 'right', w: 100 }], 760);
  assert.ok(right[0] + 100 + 12 <= right[1] && right[1] + 100 <= 760);
});
