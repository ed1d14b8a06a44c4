/**
 * The batch cost the autotuner's model predicts with when no calibration is known (a calibration's is
 * sim's costOf): what the model measured while serving, per batch size, fitted fixed + per item the way a
 * calibration is fitted.
 */
import { fitLine } from '../util/fit-line';
import type { BatchCost } from './queue-model';
import type { AutotuneWindow } from './window';

/** Measured compute per batch size over the windows seen so far; the newest windows weigh most. */
export class ObservedCost {
  private bySize = new Map<number, { batches: number; sum: number }>();

  add(w: AutotuneWindow): void {
    for (const [k, [batches, sum]] of Object.entries(w.compute_by_size)) {
      const size = Number(k);
      const s = this.bySize.get(size) ?? { batches: 0, sum: 0 };
      // keep a bounded memory so a changed host shows within a few windows
      const keep = Math.min(1, 200 / Math.max(1, s.batches + batches));
      this.bySize.set(size, { batches: (s.batches + batches) * keep, sum: (s.sum + sum) * keep });
    }
  }

  /** undefined until some batch was measured */
  cost(): BatchCost | undefined {
    if (this.bySize.size === 0) return undefined;
    const table: Record<string, number> = {};
    const weights: Record<string, number> = {};
    for (const [size, s] of this.bySize) {
      table[String(size)] = s.sum / s.batches;
      weights[String(size)] = s.batches;
    }
    const fit = fitLine(table, weights);
    // one size measured: the fit is per item only; assume the cost does not shrink below that batch's
    return (n) => Math.max(1, fit.fixed_us + fit.per_item_us * n);
  }
}
