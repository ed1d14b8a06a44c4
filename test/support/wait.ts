/**
 * Polls `check` every 10 ms until it holds, failing with `what` after `ms`: for a test waiting on a real
 * process or server to reach a state it reports only by side effect (a pid gone, an event seen).
 */
export function waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      if (check()) resolve();
      else if (Date.now() > until) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 10);
    };
    poll();
  });
}
