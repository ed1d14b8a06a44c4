/**
 * MemoryLedger: who holds how much memory on which device, against a per-device budget.
 *
 * An instance first reserves a modelled estimate (before anything is allocated), so a load that cannot
 * fit is refused with a clear message instead of taking the process or the GPU into an out-of-memory
 * failure. Once loaded, the estimate is replaced by the measured figure. Every change is published as a
 * `memory` event for the dashboard and the metrics.
 */
import type { DeviceMemory, EventBus, MemoryEntry } from '@inferscope/core';

export type MemorySource = MemoryEntry['source'];

export interface MemoryOwner {
  device: string;
  model: string;
  version: string;
  instance: string;
}

export class MemoryBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryBudgetError';
  }
}

const MIB = 1024 * 1024;
export const toMiB = (bytes: number): string => (bytes / MIB).toFixed(1);

/** A live reservation; update() it once measured, release() it when the instance stops. */
export interface MemoryReservation extends Readonly<MemoryOwner> {
  readonly bytes: number;
  readonly source: MemorySource;
  update(bytes: number, source: MemorySource): void;
  release(): void;
}

export interface MemoryLedgerOptions {
  /** device -> budget in bytes; absent or 0 = no budget on that device */
  budgets?: Record<string, number>;
  bus?: EventBus;
  /** microseconds on the server's scheduler clock (events share one time axis) */
  now?: () => number;
}

interface Entry extends MemoryOwner {
  bytes: number;
  source: MemorySource;
}

export class MemoryLedger {
  private readonly budgets = new Map<string, number>();
  private readonly entries = new Set<Entry>();
  private readonly bus?: EventBus;
  private readonly now: () => number;

  constructor(opts: MemoryLedgerOptions = {}) {
    for (const [device, bytes] of Object.entries(opts.budgets ?? {})) this.setBudget(device, bytes);
    this.bus = opts.bus;
    this.now = opts.now ?? (() => Math.round(performance.now() * 1000));
  }

  setBudget(device: string, bytes: number): void {
    if (!Number.isFinite(bytes) || bytes < 0) throw new Error(`memory budget for ${device} must be >= 0 bytes, got ${bytes}`);
    this.budgets.set(device, Math.floor(bytes));
    this.publish(device);
  }

  budget(device: string): number {
    return this.budgets.get(device) ?? 0;
  }

  used(device: string): number {
    let sum = 0;
    for (const e of this.entries) if (e.device === device) sum += e.bytes;
    return sum;
  }

  /** Reserves `bytes` for an instance, or throws MemoryBudgetError when the device's budget cannot hold it. */
  reserve(owner: MemoryOwner, bytes: number, source: MemorySource = 'modelled'): MemoryReservation {
    const need = Math.max(0, Math.ceil(bytes));
    const budget = this.budget(owner.device);
    if (budget > 0) {
      const free = Math.max(0, budget - this.used(owner.device));
      if (need > free) {
        throw new MemoryBudgetError(
          `loading instance ${owner.instance} of model '${owner.model}' version ${owner.version} needs ${toMiB(need)} MiB on ${owner.device}, ` +
            `only ${toMiB(free)} MiB of the budget ${toMiB(budget)} MiB is free`,
        );
      }
    }
    const entry: Entry = { ...owner, bytes: need, source };
    this.entries.add(entry);
    this.publish(owner.device);
    let released = false;
    const ledger = this;
    return {
      ...owner,
      get bytes() {
        return entry.bytes;
      },
      get source() {
        return entry.source;
      },
      update(b: number, s: MemorySource) {
        if (released) return;
        // A measured figure above the estimate is recorded as it is: the memory is already in use, and
        // hiding it would make the budget lie. The next reservation sees the true figure.
        entry.bytes = Math.max(0, Math.round(b));
        entry.source = s;
        ledger.publish(owner.device);
      },
      release() {
        if (released) return;
        released = true;
        ledger.entries.delete(entry);
        ledger.publish(owner.device);
      },
    };
  }

  /**
   * Throws MemoryBudgetError when `extraInstances` more instances of a loaded model version would not fit,
   * sizing each new instance like the largest one already running (measured where it was). Lets a live
   * instance-count change be refused up front, before any worker starts. No-op when nothing is loaded yet.
   */
  checkAddInstances(model: string, version: string, extraInstances: number): void {
    if (extraInstances <= 0) return;
    const mine = [...this.entries].filter((e) => e.model === model && e.version === version);
    if (mine.length === 0) return;
    const largest = mine.reduce((a, e) => (e.bytes > a.bytes ? e : a));
    const budget = this.budget(largest.device);
    if (budget === 0) return;
    const need = largest.bytes * extraInstances;
    const free = Math.max(0, budget - this.used(largest.device));
    if (need > free) {
      throw new MemoryBudgetError(
        `adding ${extraInstances} instance${extraInstances === 1 ? '' : 's'} of model '${model}' version ${version} needs ${toMiB(need)} MiB on ${largest.device}, ` +
          `only ${toMiB(free)} MiB of the budget ${toMiB(budget)} MiB is free`,
      );
    }
  }

  /**
   * What the budget leaves free on the device a model version's instances run on (for one request's
   * memory, memory/request-cost.ts); undefined when that device has no budget or nothing is reserved.
   */
  freeFor(model: string, version: string): { device: string; free: number; budget: number } | undefined {
    for (const e of this.entries) {
      if (e.model !== model || e.version !== version) continue;
      const budget = this.budget(e.device);
      return budget > 0 ? { device: e.device, free: Math.max(0, budget - this.used(e.device)), budget } : undefined;
    }
    return undefined;
  }

  snapshot(): DeviceMemory[] {
    const devices = new Set<string>([...this.budgets.keys(), ...[...this.entries].map((e) => e.device)]);
    return [...devices].sort().map((device) => this.deviceMemory(device));
  }

  private deviceMemory(device: string): DeviceMemory {
    const entries: MemoryEntry[] = [...this.entries]
      .filter((e) => e.device === device)
      .map((e) => ({ model: e.model, version: e.version, instance: e.instance, bytes: e.bytes, source: e.source }));
    return { device, used_bytes: entries.reduce((a, e) => a + e.bytes, 0), budget_bytes: this.budget(device), entries };
  }

  private publish(device: string): void {
    if (!this.bus) return;
    this.bus.emit({ type: 'memory', t: this.now(), ...this.deviceMemory(device) });
  }
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: MIB, mb: MIB, mib: MIB, g: 1024 * MIB, gb: 1024 * MIB, gib: 1024 * MIB };

/** "512MiB" / "2g" / "1048576" -> bytes. */
export function parseBytes(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`'${text}' is not a size (examples: 512MiB, 2GiB, 1048576)`);
  return Math.round(Number(m[1]) * unit);
}

/**
 * The --memory-budget flag: "512MiB" (the cpu device) or a list "cpu:512MiB,gpu0:8GiB".
 * Returns device -> bytes.
 */
export function parseMemoryBudget(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const colon = part.indexOf(':');
    const device = colon >= 0 ? part.slice(0, colon).trim() : 'cpu';
    if (!/^(cpu|gpu\d+)$/.test(device)) throw new Error(`unknown device '${device}' in memory budget (use cpu or gpuN)`);
    out[device] = parseBytes(colon >= 0 ? part.slice(colon + 1) : part);
  }
  return out;
}
