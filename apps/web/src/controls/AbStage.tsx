/**
 * The A/B comparison's result on the main stage, above the view (its table, per-second chart and verdicts
 * need the width: in the side panel they were squeezed into a 280 px box). The side panel's form runs it
 * and puts the result here; closing the card forgets it.
 */
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { S } from '../i18n/strings';
import { AbTable } from './AbTable';
import type { AbResult } from './ab-rounds';

/** The last A/B result, null when none was run (or it was closed). */
export const abResultStore = createStore<{ result: AbResult | null }>(() => ({ result: null }));

export function AbStage() {
  const result = useStore(abResultStore, (s) => s.result);
  if (!result) return null;
  return (
    <section className="card p-3 mb-3" data-testid="ab-stage">
      <div className="flex items-center justify-between gap-2">
        <h3 className="card-title p-0">{S.abCompare}</h3>
        <button type="button" className="btn btn-sm" onClick={() => abResultStore.setState({ result: null })} aria-label={S.close} data-testid="ab-close">✕</button>
      </div>
      <AbTable result={result} />
    </section>
  );
}
