/**
 * A one-shot request to bring an element of the next lesson into view (a misconception card points at the
 * table that disproves it); whoever renders that element calls takeFocus when it is there.
 */
let pending: string | null = null;

export function requestFocus(testId: string): void {
  pending = testId;
}

/** Scroll the requested element into view and mark it, if it is on the page now. */
export function takeFocus(): void {
  if (!pending || typeof document === 'undefined') return;
  const el = document.querySelector(`[data-testid="${pending}"]`);
  if (!el) return;
  pending = null;
  // a table folded under its chart opens to be seen
  const folded = el.closest('details');
  if (folded) folded.open = true;
  el.scrollIntoView({ block: 'center' });
  el.setAttribute('data-focused', '1');
}
