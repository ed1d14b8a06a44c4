/** Number formatting for labels: microseconds in, human units out. Pure, unit-tested. */
export function formatUs(us: number): string {
  if (!Number.isFinite(us)) return '–';
  const a = Math.abs(us);
  if (a >= 1_000_000) return `${+(us / 1_000_000).toFixed(2)} s`;
  if (a >= 1000) return `${+(us / 1000).toFixed(a >= 100_000 ? 0 : a >= 10_000 ? 1 : 2)} ms`;
  return `${Math.round(us)} µs`;
}

export function formatBytes(b: number): string {
  if (!Number.isFinite(b)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${+v.toFixed(v >= 100 || i === 0 ? 0 : 1)} ${units[i]}`;
}

export function formatRate(perS: number): string {
  if (!Number.isFinite(perS)) return '–';
  if (perS >= 10_000) return `${+(perS / 1000).toFixed(1)}k`;
  if (perS >= 100) return `${Math.round(perS)}`;
  return `${+perS.toFixed(1)}`;
}

/** One unit for a whole axis: ticks are computed in it (round steps there) and every label carries it. */
export interface AxisUnit {
  divisor: number;
  suffix: string;
}

export type AxisKind = 'us' | 'bytes';

/** The unit an axis of `kind` reading up to `max` is labelled in: the largest that keeps `max` >= 1. */
export function axisUnit(kind: AxisKind, max: number): AxisUnit {
  const units: AxisUnit[] = kind === 'us'
    ? [{ divisor: 1, suffix: 'µs' }, { divisor: 1000, suffix: 'ms' }, { divisor: 1_000_000, suffix: 's' }]
    : [{ divisor: 1, suffix: 'B' }, { divisor: 1024, suffix: 'KiB' }, { divisor: 1024 ** 2, suffix: 'MiB' }, { divisor: 1024 ** 3, suffix: 'GiB' }];
  let pick = units[0];
  for (const u of units) if (Math.abs(max) >= u.divisor) pick = u;
  return pick;
}

/** A tick label in the axis's unit, with as many decimals as the tick step needs (0.5 ms, 1 ms, 1.5 ms). */
export function axisLabel(v: number, unit: AxisUnit, stepInUnit: number): string {
  const decimals = stepInUnit >= 1 || stepInUnit <= 0 ? 0 : Math.min(3, Math.ceil(-Math.log10(stepInUnit) - 1e-9));
  return `${+(v / unit.divisor).toFixed(decimals)} ${unit.suffix}`;
}
