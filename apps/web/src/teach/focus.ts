/**
 * A one-shot request to bring an element of the next lesson into view (a misconception card points at the
 * table that disproves it); whoever renders that element calls takeFocus when it is there. A component that
 * shows the target its own way claims the request instead: the experiment switches its chart to the table
 * named (a folded table scrolled into view left the chart on table 1, so "Show me" showed another point).
 */
let pending: string | null = null;
type Claimer = (testId: string) => boolean;
const claimers = new Set<Claimer>();

export function requestFocus(testId: string): void {
  pending = testId;
}

/** While mounted, `claim` is asked first; it returns true when it has shown the target itself. */
export function onFocusRequest(claim: Claimer): () => void {
  claimers.add(claim);
  return () => {
    claimers.delete(claim);
  };
}

/** Scroll the requested element into view and mark it, if it is on the page now. */
export function takeFocus(): void {
  if (!pending || typeof document === 'undefined') return;
  for (const claim of claimers) {
    if (claim(pending)) {
      pending = null;
      return;
    }
  }
  const el = document.querySelector(`[data-testid="${pending}"]`);
  if (!el) return;
  pending = null;
  // a table folded under its chart opens to be seen
  const folded = el.closest('details');
  if (folded) folded.open = true;
  el.scrollIntoView({ block: 'center' });
  el.setAttribute('data-focused', '1');
}
