import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './support/api-client.js';
import { findKnownIds, type KnownIds } from './support/known-ids.js';
import { startTarget, type Target } from './support/target.js';

/**
 * What calendar clients rely on when they poll a feed: how often to come back, and a date to revalidate by.
 * Every feed read here is parsed with ical.js, an independent reader.
 */

// X-PUBLISHED-TTL is Microsoft's; it holds a DURATION like RFC 7986 REFRESH-INTERVAL, which ical.js knows.
ICAL.design.icalendar.property['x-published-ttl'] = { defaultType: 'duration' };

let target: Target;
let client: ApiClient;
let known: KnownIds;

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
  known = await findKnownIds(client);
});

afterAll(() => target?.stop());

const feeds: [string, () => string][] = [
  ['the semester feed', () => `/ical/${known.semesterId}`],
  ['a personal feed', () => `/ical?courseIds=${known.occurrence.course.id}`],
];

const secondOf = (instant: number) => instant - (instant % 1000);
const httpDate = (instant: number) => new Date(instant).toUTCString();

/** The feed as ical.js reads it: its refresh hints and the newest LAST-MODIFIED of its events. */
function read(text: string): { refreshSeconds: number[]; newestEventChange: number | null; events: number } {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const refreshSeconds = ['refresh-interval', 'x-published-ttl'].map((name) => (calendar.getFirstPropertyValue(name) as ICAL.Duration).toSeconds());
  const changes = calendar.getAllSubcomponents('vevent').map((event) => (event.getFirstPropertyValue('last-modified') as ICAL.Time).toJSDate().getTime());
  return { refreshSeconds, newestEventChange: changes.length === 0 ? null : Math.max(...changes), events: changes.length };
}

describe.each(feeds)('%s', (_feed, path) => {
  it('asks calendar clients to refresh hourly in REFRESH-INTERVAL and X-PUBLISHED-TTL', async () => {
    const response = await client.get(path());
    expect(response.status).toBe(200);
    expect(response.text).toContain('\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\n');
    const feed = read(response.text);
    expect(feed.refreshSeconds).toEqual([3600, 3600]);
    expect(feed.events).toBeGreaterThan(0);
  });

  it('is dated no earlier than the newest change of its events and no later than the answer', async () => {
    const response = await client.get(path());
    const lastModified = Date.parse(response.headers.get('last-modified') ?? '');
    expect(response.headers.get('last-modified')).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(lastModified).toBeGreaterThanOrEqual(secondOf(read(response.text).newestEventChange!));
    expect(lastModified).toBeLessThanOrEqual(Date.parse(response.headers.get('date')!));
  });

  it('answers If-Modified-Since at or after Last-Modified with 304, and earlier or malformed ones in full', async () => {
    const first = await client.get(path());
    const lastModified = first.headers.get('last-modified')!;
    const since = (value: string, etag?: string) => client.get(path(), { headers: { 'If-Modified-Since': value, ...(etag === undefined ? {} : { 'If-None-Match': etag }) } });
    const notModified = await since(lastModified);
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('last-modified')).toBe(lastModified);
    expect(notModified.headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await since(httpDate(Date.parse(lastModified) + 3_600_000))).status).toBe(304);
    for (const value of [httpDate(Date.parse(lastModified) - 1000), 'last week', lastModified.replace('GMT', 'UTC')]) {
      const full = await since(value);
      expect(full.status).toBe(200);
      expect(full.text).toBe(first.text);
    }
    // If-None-Match decides when both are sent.
    expect((await since(lastModified, '"another"')).status).toBe(200);
    expect((await since(httpDate(Date.parse(lastModified) - 1000), first.headers.get('etag')!)).status).toBe(304);
  });
});
