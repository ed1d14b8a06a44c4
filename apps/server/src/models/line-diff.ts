/**
 * A small line diff (longest common subsequence) for showing what saveConfig changes. Config files are a
 * few dozen lines, so the quadratic table is fine and keeps this dependency-free.
 */
export function lineDiff(before: string, after: string, fromLabel = 'before', toLabel = 'after'): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push(`+${b[j++]}`);
    } else {
      out.push(`-${a[i++]}`);
    }
  }
  return out.join('\n');
}
