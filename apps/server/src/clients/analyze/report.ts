/**
 * Sweep output: a ranked text table, CSV, and a self-contained HTML report (inline SVG frontier chart and
 * table, no script or external asset, so it opens offline and can be mailed). Every config of the
 * requested space has a row: measured ones with their figures, skipped ones with the reason.
 */
import { configKey, describeConfig, type SweepConfig } from './search-space';
import type { RankedResult as Ranked } from '@inferscope/core';
import type { Recommendation } from '@inferscope/core/load';

export interface Skipped {
  config: SweepConfig;
  reason: string;
}

/** What a report says about the run it reports: which model, where, under what load, when. */
export interface ReportMeta {
  model: string;
  version?: string;
  /** the server's host (name, cores) as the client sees it */
  host: string;
  traffic: string;
  latencyBudgetUs?: number;
  when: string;
}

/** The recommendation in one sentence: the best config, or the closest one and by how much it misses. */
export function recommendationLine(rec: Recommendation | undefined): string {
  if (!rec) return 'No config could be measured without errors: nothing to recommend.';
  const r = rec.result;
  const figures = `${r.throughput_per_s.toFixed(0)} inferences/s at p99 ${ms(r.latency_us.p99)} ms`;
  return rec.meets
    ? `Recommended (best within the budgets): ${describeConfig(r.config)}, ${figures}.`
    : `No config met the budgets. Closest: ${describeConfig(r.config)}, ${figures}; ${rec.misses ?? 'it misses a budget'}.`;
}

const ms = (us: number) => (us / 1000).toFixed(2);
const MiB = (b: number) => (b / 2 ** 20).toFixed(1);

const COLUMNS = ['rank', 'pareto', 'instances', 'max_batch_size', 'max_queue_delay_us', 'preferred_batch_size', 'throughput_per_s',
  'p50_ms', 'p95_ms', 'p99_ms', 'avg_batch', 'queue_us', 'compute_us', 'memory_mib', 'errors', 'stable', 'excluded',
  'repeats', 'throughput_range', 'p99_range_ms', 'within_noise_of'] as const;

function configCells(c: SweepConfig): Array<string | number> {
  return [c.instances, c.max_batch_size, c.max_queue_delay_microseconds, c.preferred_batch_size.join(' ')];
}

function row(r: Ranked): Array<string | number> {
  const s = r.spread;
  return [r.rank ?? '', r.pareto ? 'yes' : '', ...configCells(r.config),
    r.throughput_per_s.toFixed(1), ms(r.latency_us.p50), ms(r.latency_us.p95), ms(r.latency_us.p99), r.avg_batch.toFixed(2),
    r.queue_us.toFixed(0), r.compute_us.toFixed(0), MiB(r.memory_bytes), r.errors, r.stable ? 'yes' : 'no', r.excluded ?? '',
    s?.repeats ?? 1, s ? `${s.throughput_per_s[0].toFixed(1)}-${s.throughput_per_s[1].toFixed(1)}` : '', s ? `${ms(s.p99_us[0])}-${ms(s.p99_us[1])}` : '', r.within_noise_of ?? ''];
}

/** A config the sweep did not measure: its config, blank figures, the reason. */
function skippedRow(s: Skipped): Array<string | number> {
  const cells: Array<string | number> = ['', '', ...configCells(s.config)];
  while (cells.length < COLUMNS.indexOf('excluded')) cells.push('');
  cells.push(`skipped: ${s.reason}`);
  while (cells.length < COLUMNS.length) cells.push('');
  return cells;
}

export function toCsv(ranked: readonly Ranked[], skipped: readonly Skipped[] = [], meta?: ReportMeta): string {
  const esc = (v: string | number) => (/[",\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v));
  // what was measured where: the same cells on every row, so each row stands alone when rows are merged
  const about = meta ? [meta.model, meta.version ?? '', meta.host, meta.traffic, meta.when] : [];
  const head = meta ? [...COLUMNS, 'model', 'version', 'host', 'load', 'date'] : [...COLUMNS];
  const line = (cells: Array<string | number>) => [...cells, ...about].map(esc).join(',');
  return [head.join(','), ...ranked.map((r) => line(row(r))), ...skipped.map((s) => line(skippedRow(s)))].join('\n') + '\n';
}

export function toText(ranked: readonly Ranked[], skipped: readonly Skipped[] = []): string {
  const head = ['#', 'config', 'infer/s', 'p50 ms', 'p99 ms', 'batch', 'queue µs', 'compute µs', 'MiB', ''];
  const rows = ranked.map((r) => [r.rank === null ? '-' : String(r.rank), describeConfig(r.config), r.throughput_per_s.toFixed(0), ms(r.latency_us.p50),
    ms(r.latency_us.p99), r.avg_batch.toFixed(1), r.queue_us.toFixed(0), r.compute_us.toFixed(0), MiB(r.memory_bytes),
    [r.pareto ? 'pareto' : '', r.excluded ?? '', r.stable ? '' : 'unstable', r.within_noise_of ? `within noise of #${r.within_noise_of}` : ''].filter(Boolean).join(', ')]);
  for (const s of skipped) rows.push(['-', describeConfig(s.config), '', '', '', '', '', '', '', `skipped: ${s.reason}`]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((r) => r.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Throughput (y) against p99 (x): every config a dot, the Pareto set joined and filled, the best ringed. */
function frontierSvg(ranked: readonly Ranked[], budgetUs?: number): string {
  const W = 720, H = 380, L = 64, R = 16, T = 16, B = 48;
  const xs = ranked.map((r) => r.latency_us.p99 / 1000);
  const ys = ranked.map((r) => r.throughput_per_s);
  const xMax = Math.max(1e-3, ...xs, budgetUs ? budgetUs / 1000 : 0) * 1.08;
  const yMax = Math.max(1, ...ys) * 1.08;
  const x = (v: number) => L + (v / xMax) * (W - L - R);
  const y = (v: number) => H - B - (v / yMax) * (H - T - B);
  const ticks = (max: number) => Array.from({ length: 5 }, (_, i) => (max * (i + 1)) / 5);
  const front = ranked.filter((r) => r.pareto).sort((a, b) => a.latency_us.p99 - b.latency_us.p99);
  const best = ranked.find((r) => r.rank === 1);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="throughput against p99 latency">`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#888"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#888"/>`,
    ...ticks(xMax).map((v) => `<text x="${x(v)}" y="${H - B + 16}" font-size="11" text-anchor="middle">${v.toFixed(1)}</text>`),
    ...ticks(yMax).map((v) => `<text x="${L - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end">${v.toFixed(0)}</text>`),
    `<text x="${(L + W - R) / 2}" y="${H - 10}" font-size="12" text-anchor="middle">p99 latency (ms)</text>`,
    `<text x="14" y="${(T + H - B) / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})">inferences/s</text>`,
  ];
  if (budgetUs) parts.push(`<line x1="${x(budgetUs / 1000)}" y1="${T}" x2="${x(budgetUs / 1000)}" y2="${H - B}" stroke="#c33" stroke-dasharray="4 3"/><text x="${x(budgetUs / 1000) + 4}" y="${T + 12}" font-size="11" fill="#c33">latency budget</text>`);
  if (front.length > 1) parts.push(`<polyline fill="none" stroke="#4f46e5" stroke-width="2" points="${front.map((r) => `${x(r.latency_us.p99 / 1000)},${y(r.throughput_per_s)}`).join(' ')}"/>`);
  for (const r of ranked) {
    const title = `${describeConfig(r.config)}: ${r.throughput_per_s.toFixed(0)}/s, p99 ${ms(r.latency_us.p99)} ms`;
    parts.push(`<circle cx="${x(r.latency_us.p99 / 1000)}" cy="${y(r.throughput_per_s)}" r="${r.pareto ? 6 : 4}" fill="${r.pareto ? '#4f46e5' : '#bbb'}" data-config="${escapeHtml(configKey(r.config))}"><title>${escapeHtml(title)}</title></circle>`);
  }
  if (best) parts.push(`<circle cx="${x(best.latency_us.p99 / 1000)}" cy="${y(best.throughput_per_s)}" r="11" fill="none" stroke="#16a34a" stroke-width="2.5"/>`);
  parts.push('</svg>');
  return parts.join('');
}

export function toHtml(ranked: readonly Ranked[], meta: ReportMeta, extra: { skipped?: readonly Skipped[]; recommendation?: Recommendation } = {}): string {
  const head = COLUMNS.map((c) => `<th>${c}</th>`).join('');
  const cells = (vs: Array<string | number>) => vs.map((v) => `<td>${escapeHtml(String(v))}</td>`).join('');
  const body = [
    ...ranked.map((r) => `<tr class="${r.rank === 1 ? 'best' : r.pareto ? 'pareto' : ''}">${cells(row(r))}</tr>`),
    ...(extra.skipped ?? []).map((s) => `<tr class="skipped">${cells(skippedRow(s))}</tr>`),
  ].join('\n');
  const version = meta.version ? ` version ${escapeHtml(meta.version)}` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>InferScope sweep: ${escapeHtml(meta.model)}</title>
<style>body{font:14px system-ui,sans-serif;margin:24px;color:#111}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:right}
tr.best{background:#dcfce7}tr.pareto{background:#eef2ff}tr.skipped{color:#888}h1{font-size:20px}.muted{color:#666}</style></head><body>
<h1>Sweep of ${escapeHtml(meta.model)}${version}</h1>
<p class="muted">${escapeHtml(meta.when)} · host ${escapeHtml(meta.host)} · traffic: ${escapeHtml(meta.traffic)}${meta.latencyBudgetUs ? ` · latency budget p99 ${ms(meta.latencyBudgetUs)} ms` : ''} · each config applied live, measured until 3 windows agree</p>
<p data-recommendation>${escapeHtml(recommendationLine(extra.recommendation))}</p>
${frontierSvg(ranked, meta.latencyBudgetUs)}
<p class="muted">Blue: the Pareto set (no other config has both more throughput and a lower p99). Green ring: the best config within the budgets.</p>
<table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></body></html>
`;
}
