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
