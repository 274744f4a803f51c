import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './support/axe.js';
import { DESKTOP, PHONE } from './support/browser.js';
import { readJson, readWeek } from './support/catalog-reads.js';
import { tabTo } from './support/keyboard.js';
import { usePageSession } from './support/page-session.js';
import { screenshot } from './support/screenshots.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const DELIVERY_WAIT_MS = 30_000;

const session = usePageSession();
let receiver: WebhookReceiver;
let course: { id: string; name: string; code: string; label: string };
let roomId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const { originalEvent } = (await readWeek(session.origin, 'current')).occurrences.find((occurrence) => occurrence.originalEvent.roomId)!;
  const found = (await readJson<{ data: { name: string; code: string } }>(session.origin, `/courses/${originalEvent.courseId}`)).data;
  course = { id: originalEvent.courseId, ...found, label: `Course: ${found.name} (${found.code})` };
  roomId = originalEvent.roomId!;
});

afterAll(async () => {
  await receiver?.close();
});

const openPage = (viewport: { width: number; height: number }, path: string): Promise<Page> => session.open(viewport, path);

async function post<T>(path: string, body: unknown, key?: string): Promise<T> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) };
  const response = await fetch(`${session.origin}/v1/timetable${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(response.ok, `POST ${path}`).toBe(true);
  return (response.status === 204 ? null : await response.json()) as T;
}

/** No serious or critical axe violation, and nothing wider than the window (no sideways scrolling on a phone). */
async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
}

describe.each([
  ['desktop', DESKTOP],
  ['360 px wide', PHONE],
])('every view, checked by axe-core (%s)', (name, viewport) => {
  it('the timetable with picks, their week and the subscribe link', async () => {
    const page = await openPage(viewport, `/?courseIds=${course.id}&roomIds=${roomId}`);
    await page.locator('#week-days .occurrence').first().waitFor();
    await page.getByLabel('Find by name').fill(course.name);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('#search-results li').first().waitFor();
    await expectAccessible(page);
  });

  it('free rooms with results', async () => {
    const page = await openPage(viewport, '/#free-rooms');
    await page.getByRole('button', { name: 'Find free rooms' }).click();
    await page.locator('#free-rooms-status', { hasText: /free\.$/ }).waitFor();
    await expectAccessible(page);
  });

  it('developers: registering, then the account, a webhook, its deliveries and the webhook form', async () => {
    const page = await openPage(viewport, '/#developers');
    await expectAccessible(page);
    const { data } = await post<{ data: { apiKey: string } }>('/developers/register', { email: `axe-${name.length}@example.edu` });
    const { data: webhook } = await post<{ data: { id: string } }>('/webhooks', { url: receiver.url, filterScope: 'course', filterCourseId: course.id }, data.apiKey);
    await post(`/webhooks/${webhook.id}/test`, {}, data.apiKey);
    await page.getByLabel('API key', { exact: true }).fill(data.apiKey);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('button', { name: `Deliveries: webhook to ${receiver.url}` }).click();
    await page.locator('#deliveries-body tr', { hasText: 'delivered' }).waitFor({ timeout: DELIVERY_WAIT_MS });
    await page.getByRole('button', { name: `Edit: webhook to ${receiver.url}` }).click();
    await page.getByRole('button', { name: `Choose ${course.label}` }).or(page.locator('#scope-chosen', { hasText: course.label })).first().waitFor();
    await screenshot(page, `developers-everything-${name.replace(/\W+/g, '-')}`);
    await expectAccessible(page);
  });
});

describe('with the keyboard alone, 360 px wide (Tab, Enter, Space; arrows only inside a select)', () => {
  it('a student finds a course, adds it, steps to the next week and copies the feed address', async () => {
    const page = await openPage(PHONE, '/');
    await tabTo(page, 'Find by name');
    await page.keyboard.type(course.name);
    await page.keyboard.press('Enter');
    await tabTo(page, `Add ${course.label}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('courseIds')).toBe(course.id);
    const status = page.locator('#week-status');
    await status.filter({ hasText: /in week/ }).waitFor();
    const thisWeek = await status.textContent();
    await tabTo(page, 'Next week');
    await page.keyboard.press('Space');
    await expect.poll(() => status.textContent()).not.toBe(thisWeek);
    await tabTo(page, 'Copy address');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#copy-feed-status').textContent()).toMatch(/^(Copied\.|Selected: press Ctrl\+C)/);
  });

  it('someone looking for a room opens free rooms from the menu and finds some', async () => {
    const page = await openPage(PHONE, '/');
    await tabTo(page, 'Free rooms');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('free-rooms-heading');
    await tabTo(page, 'Find free rooms');
    await page.keyboard.press('Enter');
    await page.locator('#free-rooms-status', { hasText: /free\.$/ }).waitFor();
  });

  it('a developer registers, uses the key, creates a webhook scoped to a course found by name and tests it', async () => {
    const page = await openPage(PHONE, '/');
    await tabTo(page, 'Developers');
    await page.keyboard.press('Enter');
    await tabTo(page, 'E-mail');
    await page.keyboard.type('keyboard@example.edu');
    await page.keyboard.press('Enter');
    await tabTo(page, 'Use this key now');
    await page.keyboard.press('Enter');
    await tabTo(page, 'New webhook');
    await page.keyboard.press('Enter');
    await tabTo(page, 'Receiver URL');
    await page.keyboard.type(receiver.url);
    await tabTo(page, 'Scope');
    for (let option = 0; option < 3; option += 1) await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Scope').inputValue()).toBe('course');
    await tabTo(page, 'Find the course by name');
    await page.keyboard.type(course.name);
    await page.keyboard.press('Enter');
    await tabTo(page, `Choose ${course.label}`);
    await page.keyboard.press('Space');
    await tabTo(page, 'Save webhook');
    await page.keyboard.press('Enter');
    await tabTo(page, `Send test: webhook to ${receiver.url}`);
    await page.keyboard.press('Enter');
    await page.locator('#deliveries-body tr', { hasText: 'delivered' }).waitFor({ timeout: DELIVERY_WAIT_MS });
    expect(await page.locator('#webhooks-body td[data-label="Scope"]').textContent()).toBe(course.label);
  });
});
