import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ticksInUnit } from '../src/charts/draw.ts';

test('a duration axis is labelled in one unit at round steps ("0 ms, 5 ms ... 20 ms", never "0 µs, 20 ms")', () => {
  const { ticks, label } = ticksInUnit([0, 21_000], 'us', 4);
  const labels = ticks.map(label);
  assert.deepEqual(labels, ['0 ms', '5 ms', '10 ms', '15 ms', '20 ms']);
  const fine = ticksInUnit([0, 2_600], 'us', 4);
  assert.deepEqual(fine.ticks.map(fine.label), ['0 ms', '0.5 ms', '1 ms', '1.5 ms', '2 ms', '2.5 ms']);
  const small = ticksInUnit([0, 800], 'us', 4);
  assert.ok(small.ticks.map(small.label).every((l) => l.endsWith(' µs')));
});

test('a bytes axis ticks at round steps of its unit (not 95.4 / 191 MiB)', () => {
  const { ticks, label } = ticksInUnit([0, 220 * 2 ** 20], 'bytes', 4);
  const labels = ticks.map(label);
  assert.deepEqual(labels, ['0 MiB', '50 MiB', '100 MiB', '150 MiB', '200 MiB']);
});

test('neighbouring model colours differ in hue (two versions of a model never look alike)', async () => {
  const { MODEL_PALETTE } = await import('../src/charts/theme.ts');
  const hue = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
    const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
    if (d < 0.08) return -1; // grey: no hue
    const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    return (h * 60 + 360) % 360;
  };
  assert.equal(new Set(MODEL_PALETTE).size, 10);
  for (let i = 0; i + 1 < MODEL_PALETTE.length; i++) {
    const a = hue(MODEL_PALETTE[i]), b = hue(MODEL_PALETTE[i + 1]);
    if (a < 0 || b < 0) continue;
    const gap = Math.min(Math.abs(a - b), 360 - Math.abs(a - b));
    assert.ok(gap >= 30, `${MODEL_PALETTE[i]} and ${MODEL_PALETTE[i + 1]}: ${gap.toFixed(0)}° apart`);
  }
});
