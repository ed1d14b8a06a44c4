/**
 * A strict checker for the Prometheus text format as we emit it: every family has exactly one HELP and
 * one TYPE line before its samples, names and labels are valid, no series repeats, values are numbers.
 * Returns the samples so tests can assert on values.
 */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function checkExposition(text: string): { samples: ParsedSample[]; types: Map<string, string> } {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const helps = new Set<string>();
  const types = new Map<string, string>();
  const series = new Set<string>();
  const samples: ParsedSample[] = [];
  let current = '';
  text
    .slice(0, -1)
    .split('\n')
    .forEach((line, i) => {
      const where = `line ${i + 1}: ${line}`;
      if (line.startsWith('# HELP ')) {
        const name = line.slice(7).split(' ')[0];
        if (!NAME.test(name) || helps.has(name)) throw new Error(`bad or repeated HELP: ${where}`);
        helps.add(name);
        current = name;
        return;
      }
      if (line.startsWith('# TYPE ')) {
        const [name, type] = line.slice(7).split(' ');
        if (name !== current || types.has(name)) throw new Error(`TYPE without its HELP: ${where}`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type)) throw new Error(`bad type: ${where}`);
        types.set(name, type);
        return;
      }
      if (line.startsWith('#') || line === '') throw new Error(`unexpected line: ${where}`);
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`malformed sample: ${where}`);
      const [, name, , body, raw] = m;
      // a summary's (or histogram's) _sum/_count (and a histogram's _bucket) lines belong to its family
      const suffixed = /_(sum|count|bucket)$/.test(name) && name.replace(/_(sum|count|bucket)$/, '') === current && ['summary', 'histogram'].includes(types.get(current) ?? '');
      if ((name !== current && !suffixed) || !types.has(current)) throw new Error(`sample outside its family: ${where}`);
      const labels: Record<string, string> = {};
      if (body) {
        const re = /([^=,]+)="((?:[^"\\]|\\.)*)"(,|$)/y;
        let pos = 0;
        while (pos < body.length) {
          re.lastIndex = pos;
          const lm = re.exec(body);
          if (!lm || !LABEL.test(lm[1])) throw new Error(`malformed labels: ${where}`);
          labels[lm[1]] = lm[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
          pos = re.lastIndex;
        }
      }
      const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
      if (raw !== 'NaN' && Number.isNaN(value)) throw new Error(`bad value: ${where}`);
      const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
      if (series.has(key)) throw new Error(`repeated series: ${where}`);
      series.add(key);
      samples.push({ name, labels, value });
    });
  return { samples, types };
}

export function value(samples: ParsedSample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
