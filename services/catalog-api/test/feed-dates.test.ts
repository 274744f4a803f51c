import { describe, expect, it } from 'vitest';
import { captureLogger } from '@timetable/testing';
import { FeedDates, FEED_DATE_RETENTION_MS } from '../src/features/ical/feed-dates.js';
import type { FeedDateInput } from '../src/features/ical/feed-dates-store.js';

/** Answers dates as told and records what it was asked. */
class FakeStore {
  readonly renderings: FeedDateInput[] = [];
  readonly prunes: Date[] = [];
  answer: Date | Error = new Date('2026-03-01T08:00:00Z');

  date(input: FeedDateInput): Promise<Date> {
    this.renderings.push(input);
    return this.answer instanceof Error ? Promise.reject(this.answer) : Promise.resolve(this.answer);
  }

  prune(servedBefore: Date): Promise<number> {
    this.prunes.push(servedBefore);
    return Promise.resolve(0);
  }
}

function datesWith(clock: { now: Date }) {
  const store = new FakeStore();
  const { logger, lines } = captureLogger('warn');
  const dates = new FeedDates({ store, now: () => clock.now, logger });
  return { store, dates, lines };
}

const feed = { text: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n', newestChange: new Date('2026-02-20T09:15:30.250Z') };

describe('feed dates', () => {
  it('hand the store the newest change and this second, both to the second, and a hash of the content', async () => {
    const { store, dates } = datesWith({ now: new Date('2026-03-01T08:00:00.700Z') });
    expect(await dates.dated('ical:a', feed)).toEqual({ body: feed.text, lastModified: new Date('2026-03-01T08:00:00Z') });
    expect(store.renderings[0]).toMatchObject({ newestChange: new Date('2026-02-20T09:15:30Z'), thisSecond: new Date('2026-03-01T08:00:00Z') });
    await dates.dated('ical:b', { ...feed, text: `${feed.text} ` });
    const [first, second] = store.renderings;
    expect(first?.keyHash).not.toBe(second?.keyHash);
    expect(first?.fingerprint).not.toBe(second?.fingerprint);
  });

  it('never date a feed after the clock: a newest change ahead of it counts as now', async () => {
    const { store, dates } = datesWith({ now: new Date('2026-03-01T08:00:00.700Z') });
    await dates.dated('ical:a', { ...feed, newestChange: new Date('2026-03-01T09:00:00Z') });
    expect(store.renderings[0]?.newestChange).toEqual(new Date('2026-03-01T08:00:00Z'));
  });

  it('hold back a date the clock has not reached yet', async () => {
    const { store, dates } = datesWith({ now: new Date('2026-03-01T08:00:00.700Z') });
    store.answer = new Date('2026-03-01T08:00:01Z');
    expect((await dates.dated('ical:a', feed)).lastModified).toBeNull();
  });

  it('serve the feed undated when the store fails, and say so', async () => {
    const { store, dates, lines } = datesWith({ now: new Date('2026-03-01T08:00:00Z') });
    store.answer = new Error('database away');
    expect(await dates.dated('ical:a', feed)).toEqual({ body: feed.text, lastModified: null });
    expect(lines().some((line) => line.msg === 'feed date unavailable')).toBe(true);
  });

  it('forget feeds unserved for the retention period, at most once an hour', async () => {
    const clock = { now: new Date('2026-03-01T08:00:00Z') };
    const { store, dates } = datesWith(clock);
    await dates.dated('ical:a', feed);
    clock.now = new Date('2026-03-01T08:59:59Z');
    await dates.dated('ical:a', feed);
    clock.now = new Date('2026-03-01T09:00:00Z');
    await dates.dated('ical:a', feed);
    expect(store.prunes).toEqual([new Date(Date.parse('2026-03-01T08:00:00Z') - FEED_DATE_RETENTION_MS), new Date(Date.parse('2026-03-01T09:00:00Z') - FEED_DATE_RETENTION_MS)]);
  });
});
