/**
 * A small unified diff (longest common subsequence) for showing what saveConfig changes: hunks only, with
 * a few lines of context and `@@ -a,b +c,d @@` headers, a removed line before the line that replaces it
 * (as `diff -u` and git print them). Config files are a few dozen lines, so the quadratic table is fine
 * and keeps this dependency-free.
 */
const CONTEXT = 2;

type Op = { kind: ' ' | '-' | '+'; text: string };

function edits(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i++] });
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push({ kind: '-', text: a[i++] });
    } else {
      ops.push({ kind: '+', text: b[j++] });
    }
  }
  return ops;
}

export function lineDiff(before: string, after: string, fromLabel = 'before', toLabel = 'after'): string {
  if (before === after) return '';
  const ops = edits(before.split('\n'), after.split('\n'));
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  // line numbers (1-based) in each file at the start of every op
  const at: Array<{ a: number; b: number }> = [];
  let la = 1;
  let lb = 1;
  for (const op of ops) {
    at.push({ a: la, b: lb });
    if (op.kind !== '+') la++;
    if (op.kind !== '-') lb++;
  }
  let k = 0;
  while (k < ops.length) {
    if (ops[k].kind === ' ') {
      k++;
      continue;
    }
    // a hunk: from CONTEXT lines before this change to CONTEXT lines after the last change within reach
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    for (let q = k; q < ops.length; q++) {
      if (ops[q].kind !== ' ') end = q;
      else if (q - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(ops.length, end + CONTEXT + 1);
    const hunk = ops.slice(start, stop);
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${at[start].a},${aLen} +${at[start].b},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.text}`);
    k = stop;
  }
  return out.join('\n');
}
