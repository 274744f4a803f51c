import ICAL from 'ical.js';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE } from './support/browser.js';
import { labelAfter, occurrencesFromNow, readJson, readWeek, type WeekOccurrence } from './support/catalog-reads.js';
import { usePageSession } from './support/page-session.js';
import { screenshot } from './support/screenshots.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Enough weeks to cover the personal feed's 365 days. */
const FEED_WEEKS = 54;

interface Named {
  id: string;
  label: string;
}

const session = usePageSession();
/** Two courses that both take place in one room, as the catalog names them ("Course: <name> (<code>)"). */
let picks: { courses: [Named, Named]; room: Named; names: { courses: [string, string]; room: string } };

beforeAll(async () => {
  picks = await twoCoursesInOneRoom(session.origin);
});

const openPage = (viewport = DESKTOP, path = '/'): Promise<Page> => session.open(viewport, path);

/** A room of this week's timetable where at least two courses take place, and two of those courses. */
async function twoCoursesInOneRoom(origin: string): Promise<typeof picks> {
  const week = await readWeek(origin, 'current');
  const coursesByRoom = new Map<string, Set<string>>();
  for (const { originalEvent } of week.occurrences) {
    if (!originalEvent.roomId) continue;
    coursesByRoom.set(originalEvent.roomId, (coursesByRoom.get(originalEvent.roomId) ?? new Set()).add(originalEvent.courseId));
  }
  const [roomId, courseIds] = [...coursesByRoom].find(([, courses]) => courses.size >= 2) ?? [];
  if (!roomId || !courseIds) throw new Error('no room of this week holds two courses');
  const [first, second] = [...courseIds] as [string, string];
  const course = async (id: string) => (await readJson<{ data: { name: string; code: string } }>(origin, `/courses/${id}`)).data;
  const room = (await readJson<{ data: { name: string; building: string } }>(origin, `/rooms/${roomId}`)).data;
  const [one, two] = [await course(first), await course(second)];
  return {
    courses: [
      { id: first, label: `Course: ${one.name} (${one.code})` },
      { id: second, label: `Course: ${two.name} (${two.code})` },
    ],
    room: { id: roomId, label: `Room: ${room.name} (building ${room.building})` },
    names: { courses: [one.name, two.name], room: room.name },
  };
}

async function searchAndAdd(page: Page, kind: string, name: string, label: string): Promise<void> {
  await page.getByLabel('Find by name').fill(name);
  await page.getByLabel('Kind').selectOption(kind);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('button', { name: `Add ${label}`, exact: true }).click();
  await page.locator('#selection-list li', { hasText: label }).waitFor();
}

async function pickTwoCoursesAndARoom(page: Page): Promise<void> {
  await searchAndAdd(page, 'course', picks.names.courses[0], picks.courses[0].label);
  await searchAndAdd(page, 'course', picks.names.courses[1], picks.courses[1].label);
  await searchAndAdd(page, 'room', picks.names.room, picks.room.label);
}

/** The week the page shows once it is not `previousLabel` any more: its label and how many occurrences it lists. */
async function shownWeek(page: Page, previousLabel?: string): Promise<{ label: string; count: number }> {
  const status = page.locator('#week-status');
  let label = '';
  await expect
    .poll(async () => {
      label = /^\d+ lectures? in week (\S+)\.$/.exec((await status.textContent()) ?? '')?.[1] ?? '';
      return label !== '' && label !== previousLabel;
    })
    .toBe(true);
  return { label, count: await page.locator('#week-days .occurrence').count() };
}

function selectionQuery(): string {
  return `courseIds=${picks.courses[0].id},${picks.courses[1].id}&roomIds=${picks.room.id}`;
}

/** The feed's VEVENTs as "<event id> <start>", each parsed with ical.js. */
function feedOccurrences(text: string): string[] {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  return calendar.getAllSubcomponents('vevent').map((event) => {
    const eventId = String(event.getFirstPropertyValue('uid')).slice(0, 36);
    const start = (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString();
    return `${eventId} ${start}`;
  });
}

/** A feed may be rendered up to a few minutes before it is read: compare only what any rendering must hold. */
function settled(occurrences: string[]): string[] {
  const from = Date.now() + 15 * MINUTE_MS;
  const to = Date.now() + 364 * DAY_MS;
  return occurrences.filter((entry) => Date.parse(entry.split(' ')[1] ?? '') >= from && Date.parse(entry.split(' ')[1] ?? '') < to).sort();
}

const asEntries = (occurrences: WeekOccurrence[]) => occurrences.map((occurrence) => `${occurrence.eventId} ${new Date(occurrence.startTime).toISOString()}`);

describe.each([
  ['desktop', DESKTOP],
  ['360 px wide', PHONE],
])('the student part (%s)', (name, viewport) => {
  it('finds two courses and a room by name, shows their week as the API does, and steps through weeks', async () => {
    const page = await openPage(viewport);
    await pickTwoCoursesAndARoom(page);
    const query = new URL(page.url()).searchParams;
    expect(query.get('courseIds')?.split(',').sort()).toEqual([picks.courses[0].id, picks.courses[1].id].sort());
    expect(query.get('roomIds')).toBe(picks.room.id);

    const current = await readWeek(session.origin, 'current', selectionQuery());
    expect(current.occurrences.length).toBeGreaterThan(0);
    expect(await shownWeek(page)).toEqual({ label: current.week, count: current.occurrences.length });
    await screenshot(page, `timetable-week-${name.replace(/\W+/g, '-')}`);

    await page.getByRole('button', { name: 'Next week' }).click();
    const next = await readWeek(session.origin, labelAfter(current), selectionQuery());
    expect(await shownWeek(page, current.week)).toEqual({ label: next.week, count: next.occurrences.length });
    await page.getByRole('button', { name: 'Previous week' }).click();
    await page.getByRole('button', { name: 'Previous week' }).click();
    const previous = await shownWeek(page, next.week);
    expect(labelAfter(await readWeek(session.origin, previous.label))).toBe(current.week);
    await page.getByRole('button', { name: 'This week' }).click();
    expect((await shownWeek(page, previous.label)).label).toBe(current.week);
  });

  it('gives a webcal subscribe link whose feed holds exactly the selection\'s occurrences', async () => {
    const page = await openPage(viewport, `/?${selectionQuery()}`);
    const link = page.getByRole('link', { name: 'Subscribe in your calendar app' });
    await link.waitFor();
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(/^webcal:\/\//);
    const feedUrl = href.replace(/^webcal:/, 'http:');
    expect(await page.getByLabel('Feed address, for calendar apps that ask for one').inputValue()).toBe(feedUrl);
    const feed = await fetch(feedUrl);
    expect(feed.status).toBe(200);
    const inFeed = settled(feedOccurrences(await feed.text()));
    const fromApi = settled(asEntries(await occurrencesFromNow(session.origin, selectionQuery(), FEED_WEEKS)));
    expect(inFeed.length).toBeGreaterThan(0);
    expect(inFeed).toEqual(fromApi);
  });

  it('restores a shared address with its picks named, and removes a pick from the address', async () => {
    const page = await openPage(viewport, `/?${selectionQuery()}`);
    const picked = page.locator('#selection-list li');
    await expect.poll(() => picked.allTextContents()).toEqual([
      `${picks.courses[0].label}Remove`,
      `${picks.courses[1].label}Remove`,
      `${picks.room.label}Remove`,
    ]);
    await page.getByRole('button', { name: `Remove ${picks.room.label}` }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('roomIds')).toBeNull();
    expect(await picked.count()).toBe(2);
  });
});

describe('picking a program', () => {
  it('picks its semesters (the API\'s student groups)', async () => {
    const programs = (await readJson<{ data: { id: string; name: string; shortName: string; degreeType: string }[] }>(session.origin, '/programs')).data;
    const program = programs[0]!;
    const semesters = (await readJson<{ data: { id: string }[] }>(session.origin, `/programs/${program.id}/semesters`)).data;
    const page = await openPage(PHONE);
    await page.getByLabel('Find by name').fill(program.name);
    await page.getByLabel('Kind').selectOption('program');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: `Add the semesters of Program: ${program.name} (${program.shortName}, ${program.degreeType})` }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('groupIds')?.split(',').sort()).toEqual(semesters.map((semester) => semester.id).sort());
    expect(await page.locator('#selection-list li').count()).toBe(semesters.length);
  });
});

describe.each([
  ['desktop', DESKTOP],
  ['360 px wide', PHONE],
])('free rooms (%s)', (name, viewport) => {
  it('lists the rooms the API finds free for a window, a building and a size', async () => {
    const from = new Date(Date.now() + DAY_MS);
    from.setUTCHours(9, 0, 0, 0);
    const to = new Date(from.getTime() + 90 * MINUTE_MS);
    const rooms = (await readJson<{ data: { building: string }[] }>(session.origin, '/rooms')).data;
    const building = rooms[0]!.building;
    const expected = (
      await readJson<{ data: { rooms: { name: string }[] } }>(session.origin, `/rooms/free?from=${from.toISOString()}&to=${to.toISOString()}&building=${building}&minCapacity=20`)
    ).data.rooms.map((room) => room.name);
    expect(expected.length).toBeGreaterThan(0);

    const page = await openPage(viewport, '/#free-rooms');
    await page.getByLabel('Day').fill(berlin(from).slice(0, 10));
    await page.getByLabel('From').fill(berlin(from).slice(11, 16));
    await page.getByLabel('Until').fill(berlin(to).slice(11, 16));
    await page.getByLabel('Building').selectOption(building);
    await page.getByLabel('Seats at least').fill('20');
    await page.getByRole('button', { name: 'Find free rooms' }).click();
    await expect.poll(() => page.locator('#free-rooms-body th').allTextContents()).toEqual(expected);
    await screenshot(page, `free-rooms-${name.replace(/\W+/g, '-')}`);
  });

  it('late in the evening presets tomorrow morning, a window the API accepts, rather than one past midnight', async () => {
    // 23:05 in Berlin: the next quarter hour and 90 minutes after it would end at 00:45.
    const page = await session.open(viewport, '/#free-rooms', (fresh: Page) => fresh.clock.setFixedTime(new Date('2026-12-07T22:05:00Z')));
    await expect.poll(() => page.getByLabel('Day').inputValue()).toBe('2026-12-08');
    expect(await page.getByLabel('From').inputValue()).toBe('08:00');
    expect(await page.getByLabel('Until').inputValue()).toBe('09:30');
    await page.getByRole('button', { name: 'Find free rooms' }).click();
    await page.locator('#free-rooms-status', { hasText: /free\.$/ }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: /\S/ }).count()).toBe(0);
  });

  it('shows the API\'s message when the window ends before it starts', async () => {
    const page = await openPage(viewport, '/#free-rooms');
    await page.getByLabel('From').fill('12:00');
    await page.getByLabel('Until').fill('11:00');
    await page.getByRole('button', { name: 'Find free rooms' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: /\S/ }).allTextContents()).toEqual(['Query validation failed: to: must be after from']);
  });
});

/** The instant as the page's clock reads it (the browser runs in Europe/Berlin): `YYYY-MM-DDTHH:MM`. */
function berlin(instant: Date): string {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'short' }).format(instant).replace(' ', 'T');
}
