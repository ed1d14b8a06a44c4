/**
 * Metrics that models define themselves (Triton's custom metrics: `pb_utils.MetricFamily` and
 * `family.Metric(labels=...)` in a python model). The server holds the values, so every instance of a
 * model sees one series per family and label set (Triton's metric registry dedups the same way), and the
 * metrics port publishes them next to the server's own. A family and a metric belong to the model
 * versions that created them: they are removed when the last of those unloads.
 */
import type { MetricFamily as Exposed, Sample } from './exposition';

export type CustomMetricKind = 'counter' | 'gauge' | 'histogram';

/** Prometheus metric and label names (the exposition format's rule) */
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Family {
  id: number;
  name: string;
  description: string;
  kind: CustomMetricKind;
  owners: Set<string>;
}

interface Series {
  id: number;
  family: Family;
  labels: Record<string, string>;
  key: string;
  owners: Set<string>;
  value: number;
  buckets?: number[];
  counts?: number[];
  sum: number;
  count: number;
}

export class CustomMetricError extends Error {}

export class CustomMetrics {
  private seq = 0;
  private readonly families = new Map<string, Family>();
  private readonly familyById = new Map<number, Family>();
  private readonly series = new Map<number, Series>();
  private readonly seriesByKey = new Map<string, Series>();

  /** The family `name` (created, or the existing one when description and kind agree); returns its id. */
  family(owner: string, name: string, description: string, kind: CustomMetricKind): number {
    if (!NAME.test(name)) throw new CustomMetricError(`invalid metric family name '${name}': Prometheus names match [a-zA-Z_:][a-zA-Z0-9_:]*`);
    if (!['counter', 'gauge', 'histogram'].includes(kind)) throw new CustomMetricError(`unknown metric kind '${kind}'`);
    const existing = this.families.get(name);
    if (existing) {
      if (existing.kind !== kind || existing.description !== description) {
        throw new CustomMetricError(`metric family '${name}' already exists as a ${existing.kind} with description '${existing.description}'`);
      }
      existing.owners.add(owner);
      return existing.id;
    }
    const f: Family = { id: ++this.seq, name, description, kind, owners: new Set([owner]) };
    this.families.set(name, f);
    this.familyById.set(f.id, f);
    return f.id;
  }

  /** The series of `family` with `labels` (created or shared); returns its id. */
  metric(owner: string, familyId: number, labels: Record<string, string>, buckets?: number[]): number {
    const family = this.familyById.get(familyId);
    if (!family) throw new CustomMetricError(`no metric family with id ${familyId}`);
    for (const k of Object.keys(labels)) if (!LABEL.test(k) || k === 'le') throw new CustomMetricError(`invalid label name '${k}'`);
    if (family.kind === 'histogram') {
      if (!buckets || buckets.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]))) {
        throw new CustomMetricError(`histogram '${family.name}' needs buckets in increasing order`);
      }
    }
    const key = `${familyId}\0${JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
    const existing = this.seriesByKey.get(key);
    if (existing) {
      existing.owners.add(owner);
      family.owners.add(owner);
      return existing.id;
    }
    const s: Series = { id: ++this.seq, family, labels: { ...labels }, key, owners: new Set([owner]), value: 0, sum: 0, count: 0 };
    if (family.kind === 'histogram') {
      s.buckets = [...buckets!];
      s.counts = new Array<number>(buckets!.length).fill(0);
    }
    family.owners.add(owner);
    this.series.set(s.id, s);
    this.seriesByKey.set(key, s);
    return s.id;
  }

  /** increment / set / observe; the stub checked the kind, this checks again (a frame is input) */
  update(metricId: number, op: 'increment' | 'set' | 'observe', value: number): void {
    const s = this.series.get(metricId);
    if (!s || !Number.isFinite(value)) return;
    const kind = s.family.kind;
    if (op === 'increment' && kind !== 'histogram' && (kind === 'gauge' || value >= 0)) s.value += value;
    else if (op === 'set' && kind === 'gauge') s.value = value;
    else if (op === 'observe' && kind === 'histogram') {
      s.sum += value;
      s.count++;
      for (let i = 0; i < s.buckets!.length; i++) if (value <= s.buckets![i]) s.counts![i]++;
    }
  }

  value(metricId: number): number {
    const s = this.series.get(metricId);
    if (!s) throw new CustomMetricError(`no metric with id ${metricId}`);
    return s.family.kind === 'histogram' ? s.sum : s.value;
  }

  /** Drops what only `owner` held (its model version unloaded). */
  release(owner: string): void {
    for (const s of [...this.series.values()]) {
      if (s.owners.delete(owner) && s.owners.size === 0) {
        this.series.delete(s.id);
        this.seriesByKey.delete(s.key);
      }
    }
    for (const f of [...this.families.values()]) {
      if (f.owners.delete(owner) && f.owners.size === 0) {
        this.families.delete(f.name);
        this.familyById.delete(f.id);
      }
    }
  }

  /** The families as the metrics port renders them. */
  exposed(): Exposed[] {
    const out: Exposed[] = [];
    for (const f of this.families.values()) {
      const samples: Sample[] = [];
      for (const s of this.series.values()) {
        if (s.family !== f) continue;
        if (f.kind !== 'histogram') {
          samples.push({ labels: s.labels, value: s.value });
          continue;
        }
        // cumulative buckets are kept cumulative by observe() (each counts values <= its bound)
        s.buckets!.forEach((b, i) => samples.push({ labels: { ...s.labels, le: String(b) }, value: s.counts![i], suffix: '_bucket' }));
        samples.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, suffix: '_bucket' });
        samples.push({ labels: s.labels, value: s.sum, suffix: '_sum' });
        samples.push({ labels: s.labels, value: s.count, suffix: '_count' });
      }
      out.push({ name: f.name, help: f.description, type: f.kind, samples });
    }
    return out;
  }
}
