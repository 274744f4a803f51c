/**
 * What every browser test file shares: one embedded system and one chromium for the file, a page opened on a
 * path of it, and after each test the check that no page reported a problem (a console error, a failed request),
 * with each page's state printed when the test failed.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { describeFailure, DESKTOP, launchBrowser, type TestBrowser, type WatchedPage } from './browser.js';
import { startPageSystem, type PageSystem } from './page-system.js';

export interface PageSession {
  /** The system's origin, e.g. http://127.0.0.1:40123; read it in a test or a `beforeAll` after this one. */
  readonly origin: string;
  /** A fresh page in the window size given, on `path` of the system; `prepare` runs before it loads (e.g. to fix its clock). */
  open(viewport?: { width: number; height: number }, path?: string, prepare?: (page: Page) => Promise<void>): Promise<Page>;
}

/** Registers the file's hooks; call it once at the top of a browser test file, before its own hooks. */
export function usePageSession(): PageSession {
  let system: PageSystem | undefined;
  let browser: TestBrowser | undefined;
  let open: WatchedPage[] = [];

  beforeAll(async () => {
    system = await startPageSystem();
    browser = await launchBrowser();
  });

  afterEach(async ({ task }) => {
    const watched = open;
    open = [];
    if (task.result?.state === 'fail') for (const one of watched) console.error(await describeFailure(one));
    expect(watched.flatMap((one) => one.problems)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the page session has not started (usePageSession runs in beforeAll)');
    return value;
  };

  return {
    get origin() {
      return started(system).origin;
    },
    async open(viewport = DESKTOP, path = '/', prepare) {
      const watched = await started(browser).open(viewport);
      open.push(watched);
      await prepare?.(watched.page);
      await watched.page.goto(`${started(system).origin}${path}`);
      return watched.page;
    },
  };
}
