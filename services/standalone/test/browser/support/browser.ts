/**
 * Debian's chromium driven by playwright-core, which never downloads a browser of its own. Every page is
 * watched: a Content-Security-Policy violation or an uncaught script error fails the test that caused it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 360, height: 740 };

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface WatchedPage {
  page: Page;
  /** CSP violations and uncaught errors seen so far. */
  problems: string[];
}

/**
 * For a failed test: a picture of the page in the temporary directory, and what the page showed, so a failure
 * in CI can be understood from its log.
 */
export async function describeFailure({ page }: WatchedPage): Promise<string> {
  const picture = join(tmpdir(), `timetable-page-failure-${Date.now()}.png`);
  await page.screenshot({ path: picture, fullPage: true }).catch(() => undefined);
  const text = await page.evaluate('document.body.innerText').catch((error: unknown) => `(unreadable: ${String(error)})`);
  return `page ${page.url()}, picture ${picture}, text:\n${String(text).slice(0, 3000)}`;
}

export interface TestBrowser {
  /** A new tab at this size, with its own session storage. */
  open(viewport?: { width: number; height: number }): Promise<WatchedPage>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: the browser tests need Debian's chromium (apt-get install -y chromium, as .ci/run does)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'timetable-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: FLAGS,
      viewport: DESKTOP,
      locale: 'en-GB',
      timezoneId: 'Europe/Berlin',
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    open: (viewport = DESKTOP) => openWatched(context, viewport),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function openWatched(context: BrowserContext, viewport: { width: number; height: number }): Promise<WatchedPage> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  // Deleting a webhook asks for confirmation; the tests confirm.
  page.on('dialog', (dialog) => void dialog.accept());
  return { page, problems };
}
