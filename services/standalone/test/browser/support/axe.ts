/** axe-core run inside the page (evaluated over the DevTools protocol, which the page's CSP does not govern). */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The serious and critical violations on the page as it is now, each with the elements it concerns. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const injected = await page.evaluate('typeof window.axe === "object"');
  if (!injected) await page.evaluate(axe.source);
  const violations = (await page.evaluate('window.axe.run(document, { resultTypes: ["violations"] }).then((result) => result.violations)')) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
