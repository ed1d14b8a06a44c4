/**
 * The usual frame of a browser test against the live server: before the tests, the real server and one
 * watched page (console errors collected); after them, both closed. Returns a holder filled in `before`.
 */
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { chromiumMissing, openWatchedPage, type LaunchedBrowser } from './browser';
import { startServer, type RunningServer } from './server-under-test';

export interface LiveSuite {
  server: RunningServer;
  browser: LaunchedBrowser;
  page: Page;
  errors: string[];
}

export function liveSuite(o: { viewport?: { width: number; height: number }; timeoutMs?: number } = {}): LiveSuite {
  const suite = {} as LiveSuite;
  before(async () => {
    if (chromiumMissing()) return;
    suite.server = await startServer();
    Object.assign(suite, await openWatchedPage({ viewport: o.viewport ?? { width: 1440, height: 900 }, timeoutMs: o.timeoutMs ?? 30_000 }));
  });
  after(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}
