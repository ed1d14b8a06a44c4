/**
 * The batch cost the autotuner's model predicts with when no calibration is known (a calibration's is
 * sim's costOf): what the model measured while serving, per batch size, fitted fixed + per item the way a
 * calibration is fitted. On a server with a calibration, the calibration gives the shape and the measured
 * batches the level (`ObservedCost.scaled`): the serving host is seldom the calibration's (a busier or
 * slower machine takes several times longer per batch).
 */
import { fitLine } from '../util/fit-line';
import type { BatchCost } from './queue-model';
import type { AutotuneWindow } from './window';

/** the most a host's level may differ from its calibration's, either way (a bound on a wild window) */
const MAX_SCALE = 50;

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

  /**
   * A calibration's cost at this host's level: the calibration knows how a batch's cost grows with its
   * size (also at sizes not run yet, which a fit of the measured sizes cannot know: at delay 0 every batch
   * is 1, and a fit through one size predicts no gain from batching, so the delay would never grow); the
   * batches measured say how much slower or faster than the calibration this host runs them. The
   * calibration itself until a batch was measured.
   */
  scaled(calibrated: BatchCost): BatchCost {
    let measured = 0;
    let predicted = 0;
    for (const [size, s] of this.bySize) {
      measured += s.sum;
      predicted += s.batches * calibrated(size);
    }
    const k = measured > 0 && predicted > 0 ? Math.min(MAX_SCALE, Math.max(1 / MAX_SCALE, measured / predicted)) : 1;
    return k === 1 ? calibrated : (n) => calibrated(n) * k;
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
