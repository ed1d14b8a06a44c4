/**
 * Calibration from a live server's own batches. BatchLog keeps, per model version and instance kind, the
 * last `capacity` successful batches from the event stream (batch.completed: size and compute_us, the
 * time the scheduler saw the batch take, hand-off included, exactly what `inferscope calibrate` times),
 * learning each instance's kind from its instance.state events. `calibration()` fits them with the same
 * fitBatchRecords the calibrate command uses, so the simulator and teaching mode take a live calibration
 * in place of a shipped one. Pure (no clock, no I/O): the server feeds it its bus, tests feed it records.
 */
import type { SchedulerEvent } from '../events';
import { CalibrationError, type Calibration } from './calibration-cost';
import { fitBatchRecords, FitError, type BatchRecord } from './fit-batches';

export const LIVE_CAPACITY = 4096;
export const LIVE_MIN_PER_SIZE = 5;
/** a live table entry needs this share of the batches too (see FitOptions.minShare) */
export const LIVE_MIN_SHARE = 0.02;

/** What a live calibration says about where it was measured; the rest comes from the batches. */
export interface LiveCalibrationMeta {
  model: string;
  version: string;
  backend: string;
  kind: string;
  host: Calibration['host'];
  /** ISO date (the caller's clock: core reads none) */
  measured_at: string;
  /** instances the model version ran while the batches were recorded (they shared the cores) */
  instances?: number;
}

/** The calibration a set of live batch records stands for; CalibrationError when too few to fit. */
export function calibrationFromBatches(records: Iterable<BatchRecord>, meta: LiveCalibrationMeta, minPerSize = LIVE_MIN_PER_SIZE): Calibration {
  let fitted;
  try {
    fitted = fitBatchRecords(records, { minPerSize, minShare: LIVE_MIN_SHARE, weighted: true });
  } catch (err) {
    if (err instanceof FitError) throw new CalibrationError(`${meta.model} version ${meta.version} (${meta.kind}): ${err.message}; send it some traffic first`);
    throw err;
  }
  const shared = meta.instances && meta.instances > 1 ? `, ${meta.instances} instances sharing the host` : '';
  return {
    format: 'inferscope-calibration',
    model: meta.model,
    version: meta.version,
    backend: meta.backend,
    kind: meta.kind,
    method: `live: the last ${fitted.batches} batches this server ran (batch.completed compute_us per size, sizes with >= ${minPerSize} batches and >= ${LIVE_MIN_SHARE * 100}% of them), median per size, line weighted by batches${shared}`,
    host: meta.host,
    measured_at: meta.measured_at,
    table_us: fitted.table_us,
    fit: fitted.fit,
    spread: fitted.spread,
    ...(fitted.interruptions ? { interruptions: fitted.interruptions } : {}),
    source: 'live',
    counts: fitted.counts,
  };
}

class Ring {
  private readonly sizes: Uint16Array;
  private readonly us: Float64Array;
  private next = 0;
  count = 0;

  constructor(readonly capacity: number) {
    this.sizes = new Uint16Array(capacity);
    this.us = new Float64Array(capacity);
  }

  push(size: number, us: number): void {
    this.sizes[this.next] = size;
    this.us[this.next] = us;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  *records(): Generator<BatchRecord> {
    for (let i = 0; i < this.count; i++) yield { size: this.sizes[i], us: this.us[i] };
  }
}

const keyOf = (model: string, version: string, kind: string) => `${model}\u0000${version}\u0000${kind}`;

export class BatchLog {
  private readonly rings = new Map<string, Ring>();
  /** model\0version\0instance -> kind */
  private readonly kinds = new Map<string, string>();

  constructor(readonly capacity = LIVE_CAPACITY) {}

  add(e: SchedulerEvent): void {
    if (e.type === 'instance.state') {
      this.kinds.set(`${e.model}\u0000${e.version}\u0000${e.instance}`, e.kind);
      return;
    }
    if (e.type !== 'batch.completed' || !e.ok || !(e.compute_us > 0) || !(e.size >= 1)) return;
    const kind = this.kinds.get(`${e.model}\u0000${e.version}\u0000${e.instance}`) ?? 'KIND_CPU';
    this.record(e.model, e.version, kind, e.size, e.compute_us);
  }

  record(model: string, version: string, kind: string, size: number, us: number): void {
    const key = keyOf(model, version, kind);
    let ring = this.rings.get(key);
    if (!ring) this.rings.set(key, (ring = new Ring(this.capacity)));
    ring.push(Math.min(size, 65535), us);
  }

  /** kinds with batches for a model version, most batches first */
  kindsOf(model: string, version: string): string[] {
    const prefix = `${model}\u0000${version}\u0000`;
    return [...this.rings.entries()].filter(([k]) => k.startsWith(prefix)).sort((a, b) => b[1].count - a[1].count).map(([k]) => k.slice(prefix.length));
  }

  batches(model: string, version: string, kind: string): number {
    return this.rings.get(keyOf(model, version, kind))?.count ?? 0;
  }

  records(model: string, version: string, kind: string): BatchRecord[] {
    return [...(this.rings.get(keyOf(model, version, kind))?.records() ?? [])];
  }

  /** forget a model version (unloaded): its next load starts a fresh log */
  forget(model: string, version: string): void {
    const prefix = `${model}\u0000${version}\u0000`;
    for (const k of [...this.rings.keys()]) if (k.startsWith(prefix)) this.rings.delete(k);
  }

  /** The live calibration of a model version (kind: the one with most batches unless named). */
  calibration(meta: Omit<LiveCalibrationMeta, 'kind'> & { kind?: string }, minPerSize = LIVE_MIN_PER_SIZE): Calibration {
    const kind = meta.kind ?? this.kindsOf(meta.model, meta.version)[0];
    if (!kind) throw new CalibrationError(`${meta.model} version ${meta.version} has run no batches yet; send it some traffic first`);
    return calibrationFromBatches(this.records(meta.model, meta.version, kind), { ...meta, kind }, minPerSize);
  }
}
