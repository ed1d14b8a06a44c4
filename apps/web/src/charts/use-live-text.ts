/**
 * DOM bits that follow live data (a queue count, an instance chip) are updated by the frame loop at a
 * few Hz by writing to the element directly, not by React renders: thousands of events a second would
 * otherwise re-render the tree.
 */
import { useEffect, useRef } from 'react';
import { registerDrawer } from './frame-loop';

export function useLiveElement<E extends HTMLElement>(update: (el: E) => void, intervalMs = 150) {
  const ref = useRef<E | null>(null);
  const fn = useRef(update);
  fn.current = update;
  useEffect(
    () =>
      registerDrawer({
        minIntervalMs: intervalMs,
        dirty: () => false,
        draw: () => {
          if (ref.current) fn.current(ref.current);
        },
      }),
    [intervalMs],
  );
  return ref;
}

export function useLiveText<E extends HTMLElement = HTMLParagraphElement>(text: () => string) {
  return useLiveElement<E>((el) => {
    const t = text();
    if (el.textContent !== t) el.textContent = t;
  }, 250);
}
