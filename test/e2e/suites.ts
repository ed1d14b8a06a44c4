/**
 * The usual frames of a browser test: before the tests, the real server (`liveSuite`) or the built
 * dashboard on a static server (`staticSuite`, teaching mode needs no server) and one watched page
 * (console errors collected); after them, all closed. Each returns a holder filled in `before`.
 */
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { chromiumMissing, openWatchedPage, type LaunchedBrowser } from './browser';
import { serveStatic } from './static-server';
import { ensureWebBuilt, startServer, WEB_DIST, type RunningServer } from './server-under-test';

interface PageOptions {
  viewport?: { width: number; height: number };
  timeoutMs?: number;
}

export interface BrowserSuite {
  /** where the page is served from */
  url: string;
  browser: LaunchedBrowser;
  page: Page;
  errors: string[];
}

export interface LiveSuite extends BrowserSuite {
  server: RunningServer;
}

function suite<S extends BrowserSuite>(start: () => Promise<{ url: string; close(): Promise<void>; extra?: Partial<S> }>, o: PageOptions): S {
  const holder = {} as S;
  let close: (() => Promise<void>) | undefined;
  before(async () => {
    if (chromiumMissing()) return;
    const started = await start();
    close = started.close;
    Object.assign(holder, { url: started.url, ...started.extra });
    Object.assign(holder, await openWatchedPage({ viewport: o.viewport ?? { width: 1440, height: 900 }, timeoutMs: o.timeoutMs ?? 30_000 }));
  });
  after(async () => {
    await holder.browser?.close();
    await close?.();
  });
  return holder;
}

export function liveSuite(o: PageOptions = {}): LiveSuite {
  return suite<LiveSuite>(async () => {
    const server = await startServer();
    return { url: server.url, close: () => server.close(), extra: { server } };
  }, o);
}

export function staticSuite(o: PageOptions = {}): BrowserSuite {
  return suite<BrowserSuite>(async () => {
    ensureWebBuilt();
    const web = await serveStatic(WEB_DIST);
    return { url: web.url, close: () => web.close() };
  }, o);
}
