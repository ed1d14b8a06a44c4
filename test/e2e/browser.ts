/**
 * Shared helpers for browser tests: Debian's Chromium through playwright-core (never a downloaded
 * browser), flags that keep it from reaching the network, a fresh profile per launch, and console-error
 * capture so every test can assert "no console errors".
 */
import { existsSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
// declares window.__inferscopeTestHooks, the switch this harness sets
import type {} from '../../apps/web/src/platform/test-hooks';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumMissing = (): string | undefined => (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent (apt-get install -y chromium)`);
export const SCREENSHOTS = new URL('../output/screenshots/', import.meta.url).pathname;

export interface LaunchedBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A fresh profile each launch (playwright takes it as launchPersistentContext's userDataDir). */
export async function launchBrowser(viewport = { width: 1440, height: 900 }): Promise<LaunchedBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'inferscope-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
    ],
  });
  // the dashboard's read-only test hooks (apps/web/src/platform/test-hooks.ts) exist only where this asks for them
  await context.addInitScript(() => { window.__inferscopeTestHooks = true; });
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * What most browser tests open in `before`: a fresh browser, one page with a default timeout, and its
 * console errors collected (asserted empty at the end of each test).
 */
export async function openWatchedPage(o: { viewport?: { width: number; height: number }; timeoutMs?: number } = {}): Promise<{ browser: LaunchedBrowser; page: Page; errors: string[] }> {
  const browser = await launchBrowser(o.viewport);
  const page = await browser.newPage();
  if (o.timeoutMs !== undefined) page.setDefaultTimeout(o.timeoutMs);
  return { browser, page, errors: watchConsole(page) };
}

/** Collects console errors and page errors; `errors` is asserted empty at the end of a test. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
