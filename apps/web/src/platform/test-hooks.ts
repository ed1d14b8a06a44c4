/**
 * Read-only page hooks for the browser tests (test/e2e) and the dashboard bench (bench/dashboard): the
 * drawn labels, the store's counters, the renderer's data time and frame rate. They exist only on a page
 * the test harness opened: it sets `window.__inferscopeTestHooks = true` before the app's scripts run
 * (test/e2e/browser.ts, an init script of every browser it launches). A user's page has none of them.
 */
declare global {
  interface Window {
    /** set by the test harness only: install the hooks below */
    __inferscopeTestHooks?: boolean;
  }
}

/** Puts `value` on window as `name` when the test harness asked for hooks; otherwise does nothing. */
export function exposeForTests<K extends '__inferscope' | '__inferscopeCounters' | '__inferscopeDataNowUs' | '__inferscopeLabels'>(name: K, value: Window[K]): void {
  if (typeof window !== 'undefined' && window.__inferscopeTestHooks === true) (window as Window)[name] = value;
}
