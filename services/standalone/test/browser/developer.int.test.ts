import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE } from './support/browser.js';
import { readJson, readWeek } from './support/catalog-reads.js';
import { usePageSession } from './support/page-session.js';
import { screenshot } from './support/screenshots.js';
import { RECEIVER_ANSWER, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const DELIVERY_WAIT_MS = 30_000;

const session = usePageSession();
let receiver: WebhookReceiver;
/** A course of this week's timetable: what the webhook is scoped to, found by its name. */
let course: { id: string; name: string; code: string };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const courseId = (await readWeek(session.origin, 'current')).occurrences[0]!.originalEvent.courseId;
  course = { id: courseId, ...(await readJson<{ data: { name: string; code: string } }>(session.origin, `/courses/${courseId}`)).data };
});

afterAll(async () => {
  await receiver?.close();
});

const openDevelopers = (viewport: { width: number; height: number }): Promise<Page> => session.open(viewport, '/#developers');

const storedKey = (page: Page) => page.evaluate('sessionStorage.getItem("timetable.apiKey")') as Promise<string | null>;
const alerts = (page: Page) => page.getByRole('alert').filter({ hasText: /\S/ }).allTextContents();

async function register(page: Page, email: string): Promise<string> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Register' }).click();
  const key = page.getByLabel('New API key', { exact: true });
  await expect.poll(() => key.inputValue()).toMatch(/^spk_[\w-]{32}$/);
  return key.inputValue();
}

async function webhooksOf(key: string): Promise<Record<string, unknown>[]> {
  return (await readJson<{ data: Record<string, unknown>[] }>(session.origin, '/webhooks', { 'X-API-Key': key })).data;
}

describe.each([
  ['desktop', DESKTOP],
  ['360 px wide', PHONE],
])('the developer part (%s)', (name, viewport) => {
  const shot = (page: Page, view: string) => screenshot(page, `${view}-${name.replace(/\W+/g, '-')}`);

  it('shows a new key once with a warning and a copy button, and keeps the key used out of the address', async () => {
    const page = await openDevelopers(viewport);
    const key = await register(page, `once-${name.length}@example.edu`);
    await expect.poll(() => page.locator('#new-key').textContent()).toContain('It is shown only this once');
    await shot(page, 'developers-new-key');
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.locator('#copy-new-key-status').textContent()).toMatch(/^(Copied\.|Selected: press Ctrl\+C)/);

    await page.getByLabel('E-mail').fill(`once-${name.length}@example.edu`);
    await page.getByRole('button', { name: 'Register' }).click();
    await expect.poll(() => alerts(page)).toEqual(['Email already registered']);

    await page.getByRole('button', { name: 'Use this key now' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(await storedKey(page)).toBe(key);
    expect(page.url()).not.toContain(key);
    expect(await page.locator('#new-key-value').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Stop using this key' }).click();
    expect(await storedKey(page)).toBeNull();
    await page.getByLabel('API key', { exact: true }).fill(`spk_${'x'.repeat(32)}`);
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect.poll(() => alerts(page)).toEqual(['Invalid or revoked API key']);
  });

  it('creates a webhook scoped to a course found by name, tests it, and sees the delivery with its response', async () => {
    const page = await openDevelopers(viewport);
    const key = await register(page, `hooks-${name.length}@example.edu`);
    await page.getByRole('button', { name: 'Use this key now' }).click();
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByLabel('Scope').selectOption('course');
    await page.getByLabel('Find the course by name').fill(course.name);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('button', { name: `Choose Course: ${course.name} (${course.code})`, exact: true }).click();
    await shot(page, 'developers-webhook-form');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    const row = page.locator('#webhooks-body tr', { hasText: receiver.url });
    await expect.poll(() => row.locator('td[data-label="Scope"]').textContent()).toBe(`Course: ${course.name} (${course.code})`);
    expect(await webhooksOf(key)).toEqual([expect.objectContaining({ url: receiver.url, filterScope: 'course', filterCourseId: course.id, isActive: true })]);

    const received = receiver.received.length;
    await page.getByRole('button', { name: `Send test: webhook to ${receiver.url}` }).click();
    const delivered = page.locator('#deliveries-body tr', { hasText: 'delivered' });
    await delivered.first().waitFor({ timeout: DELIVERY_WAIT_MS });
    expect(receiver.received.slice(received).map((body) => body.event)).toEqual(['test.created']);
    expect(await delivered.first().locator('td[data-label="Response"]').textContent()).toBe('200');
    await delivered.first().getByText('Response body').click();
    expect(await delivered.first().locator('pre').textContent()).toBe(RECEIVER_ANSWER);
    await shot(page, 'developers-deliveries');

    await page.getByRole('button', { name: /^Redeliver test\.created/ }).first().click();
    await expect.poll(() => delivered.count(), { timeout: DELIVERY_WAIT_MS }).toBe(2);
    expect(receiver.received.length - received).toBe(2);

    await page.getByRole('button', { name: 'Recover' }).click();
    await expect.poll(() => page.locator('#recover-status').textContent()).toBe('0 failed deliveries were queued again.');
  });

  it('edits, pauses, resumes and deletes a webhook, and shows the usage', async () => {
    const page = await openDevelopers(viewport);
    const key = await register(page, `edit-${name.length}@example.edu`);
    await page.getByRole('button', { name: 'Use this key now' }).click();
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('Receiver URL').fill('not a url');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => alerts(page)).toEqual(['Body validation failed: url: must be an absolute http or https URL']);
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save webhook' }).click();
    const row = page.locator('#webhooks-body tr', { hasText: receiver.url });
    await expect.poll(() => row.locator('td[data-label="Scope"]').textContent()).toBe('Everything');

    await page.getByRole('button', { name: `Edit: webhook to ${receiver.url}` }).click();
    await page.getByRole('checkbox', { name: 'deleted' }).uncheck();
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => row.locator('td[data-label="Events"]').textContent()).toBe('created, updated');

    await page.getByRole('button', { name: `Pause: webhook to ${receiver.url}` }).click();
    await expect.poll(() => row.locator('td[data-label="State"]').textContent()).toBe('Paused');
    expect(await webhooksOf(key)).toEqual([expect.objectContaining({ isActive: false, eventTypes: ['created', 'updated'] })]);
    await page.getByRole('button', { name: `Resume: webhook to ${receiver.url}` }).click();
    await expect.poll(() => row.locator('td[data-label="State"]').textContent()).toBe('Active');

    await page.getByRole('button', { name: `Delete: webhook to ${receiver.url}` }).click();
    await expect.poll(() => page.locator('#webhooks-empty').isVisible()).toBe(true);
    expect(await webhooksOf(key)).toEqual([]);

    // Back to the view: the account is read again, with the usage the requests above left.
    await page.goto(`${session.origin}/#timetable`);
    await page.goto(`${session.origin}/#developers`);
    const usage = await readJson<{ data: { total: number } }>(session.origin, '/developers/usage', { 'X-API-Key': key });
    expect(usage.data.total).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#usage-body tr', { hasText: 'GET /v1/timetable/webhooks' }).count()).toBe(1);
    await shot(page, 'developers-account');
  });
});
