/**
 * Prometheus text exposition format (version 0.0.4): one `# HELP` and one `# TYPE` line per family, then
 * its samples `name{label="value",...} number`. Label values escape backslash, double quote and newline;
 * HELP text escapes backslash and newline.
 */
export type MetricType = 'counter' | 'gauge' | 'summary' | 'histogram';

export interface Sample {
  labels: Record<string, string>;
  value: number;
  /** appended to the family's name: a histogram's `_bucket`, `_sum` and `_count` lines */
  suffix?: string;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
  /** a summary's `_sum` and `_count` lines (its samples are the quantiles) */
  sum?: number;
  count?: number;
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export function renderFamilies(families: readonly MetricFamily[]): string {
  let out = '';
  for (const f of families) {
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) {
      const keys = Object.keys(s.labels);
      const labels = keys.length ? `{${keys.map((k) => `${k}="${escapeLabel(s.labels[k])}"`).join(',')}}` : '';
      out += `${f.name}${s.suffix ?? ''}${labels} ${formatValue(s.value)}\n`;
    }
    if (f.type === 'summary') out += `${f.name}_sum ${formatValue(f.sum ?? 0)}\n${f.name}_count ${formatValue(f.count ?? 0)}\n`;
  }
  return out;
}
