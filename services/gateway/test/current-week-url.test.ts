import { describe, expect, it } from 'vitest';
import { CURRENT_WEEK_ROUTE, currentWeekUrl } from '../src/features/cached-reads/current-week-url.js';

const week = () => '2026-W50';

describe('the URL a /week/current request is looked up under', () => {
  it('is that of the week named now, with the query exactly as received', () => {
    expect(currentWeekUrl('/v1/timetable/week/current', week)).toBe('/v1/timetable/week/2026-W50');
    expect(currentWeekUrl('/v1/timetable/week/current?groupIds=a,b&groupIds=c', week)).toBe('/v1/timetable/week/2026-W50?groupIds=a,b&groupIds=c');
    expect(currentWeekUrl('/v1/timetable/week/current?', week)).toBe('/v1/timetable/week/2026-W50?');
  });

  it('is none for any other path, which is looked up as itself', () => {
    for (const url of ['/v1/timetable/week/current/', '/v1/timetable/week/currentish', '/v1/timetable/WEEK/current', '/v1/timetable/week/2026-W50', '/v1/timetable/programs']) {
      expect(currentWeekUrl(url, week), url).toBeUndefined();
    }
  });

  it('belongs to the route Express counts /week/current under', () => {
    expect(CURRENT_WEEK_ROUTE).toBe('/v1/timetable/week/current');
  });
});
