/**
 * Least-squares line through (batch, µs): the fixed cost of a run and the cost of one more sample.
 * `weights` (size -> weight, e.g. how many batches stand behind each entry) weights the fit; default equal.
 */
export function fitLine(table: Record<string, number>, weights?: Record<string, number>): { fixed_us: number; per_item_us: number } {
  const pts = Object.entries(table).map(([k, v]) => [Number(k), v, weights?.[k] ?? 1] as const);
  const n = pts.length;
  if (n === 0) throw new RangeError('cannot fit a line through no points');
  if (n === 1) return { fixed_us: 0, per_item_us: pts[0][1] / pts[0][0] };
  const w = pts.reduce((s, p) => s + p[2], 0);
  const mx = pts.reduce((s, p) => s + p[2] * p[0], 0) / w;
  const my = pts.reduce((s, p) => s + p[2] * p[1], 0) / w;
  const sxx = pts.reduce((s, p) => s + p[2] * (p[0] - mx) ** 2, 0);
  const sxy = pts.reduce((s, p) => s + p[2] * (p[0] - mx) * (p[1] - my), 0);
  const slope = sxx > 0 ? sxy / sxx : 0;
  const round = (v: number) => Math.round(v * 100) / 100;
  return { fixed_us: round(Math.max(0, my - slope * mx)), per_item_us: round(Math.max(0, slope)) };
}
