/** Moving through the page with the keyboard alone: Tab until the wanted control has focus. */
import type { Page } from 'playwright-core';

const MAX_TABS = 150;

/**
 * What a screen reader would call the focused element, near enough for finding it: its aria-label, else its
 * label's text, else its own text. Evaluated as a string, as the tests are compiled without the DOM's types.
 */
const FOCUSED_NAME = `(() => {
  const element = document.activeElement;
  if (!element) return '';
  const name = element.getAttribute('aria-label') ?? element.labels?.[0]?.textContent ?? element.textContent ?? '';
  return name.replace(/\\s+/g, ' ').trim();
})()`;

function focusedName(page: Page): Promise<string> {
  return page.evaluate(FOCUSED_NAME) as Promise<string>;
}

/** Presses Tab (forwards) until the focused element's name matches; fails when it never does. */
export async function tabTo(page: Page, name: string | RegExp): Promise<void> {
  const matches = (candidate: string) => (typeof name === 'string' ? candidate === name : name.test(candidate));
  for (let presses = 0; presses < MAX_TABS; presses += 1) {
    await page.keyboard.press('Tab');
    if (matches(await focusedName(page))) return;
  }
  throw new Error(`No element named ${String(name)} was reached within ${MAX_TABS} presses of Tab`);
}
