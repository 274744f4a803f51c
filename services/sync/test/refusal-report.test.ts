import { captureLogger } from '@timetable/testing';
import { describe, expect, it } from 'vitest';
import { upstreamRecordsRejected } from '../src/features/validate/metrics.js';
import type { Refusal } from '../src/features/validate/refusal.js';
import { RefusalReport } from '../src/features/validate/refusal-report.js';

const counted = async (kind: string, reason: string) =>
  (await upstreamRecordsRejected.get()).values.find((value) => value.labels.kind === kind && value.labels.reason === reason)?.value ?? 0;

const refusal = (id: number, reason: Refusal['reason'] = 'impossible_date'): Refusal => ({ kind: 'event', reason, id, detail: `VEVENT ${id}` });

describe('a refused record', () => {
  it('is counted by kind and reason, and logged once with its request, program and group', async () => {
    const { logger, lines } = captureLogger('info');
    const before = await counted('event', 'impossible_date');
    new RefusalReport(logger).report([refusal(1)], { request: 'ical?lan=de&puid=37&type=pg&pgid=1001', og: 35, pgid: 1001 });
    expect(await counted('event', 'impossible_date')).toBe(before + 1);
    expect(lines()).toEqual([
      expect.objectContaining({ msg: 'upstream record refused at the boundary', og: 35, pgid: 1001, kind: 'event', reason: 'impossible_date', request: expect.stringContaining('pgid=1001') }),
    ]);
  });

  it('names the group a lecture was listed in', () => {
    const { logger, lines } = captureLogger('info');
    new RefusalReport(logger).report([{ kind: 'lecture', reason: 'string_too_long', id: 7, detail: 'name', pgid: 1002 }], { request: 'json?m=getPgsExt&pu=37&og=35', og: 35 });
    expect(lines()[0]).toMatchObject({ og: 35, pgid: 1002, upstreamId: 7 });
  });

  it('of very many in one answer are all counted, the first ten logged and the rest summed up', async () => {
    const { logger, lines } = captureLogger('info');
    const before = await counted('event', 'unknown_zone');
    new RefusalReport(logger).report(Array.from({ length: 25 }, (_, id) => refusal(id, 'unknown_zone')), { request: 'ical', og: 1, pgid: 2 });
    expect(await counted('event', 'unknown_zone')).toBe(before + 25);
    expect(lines()).toHaveLength(11);
    expect(lines()[10]).toMatchObject({ more: 15, byReason: { unknown_zone: 15 } });
  });
});
