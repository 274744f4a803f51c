import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/**
 * With PAGE_SCREENSHOT_DIR set, saves a full-page picture of the view, for a person to look at; otherwise
 * does nothing. The pictures are never compared with anything.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const directory = process.env.PAGE_SCREENSHOT_DIR;
  if (!directory) return;
  mkdirSync(directory, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(directory, `${name}-${width}.png`), fullPage: true });
}
