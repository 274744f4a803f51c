import { describe, expect, it } from 'vitest';
import { createSimulator, formatDay, type Occurrence, type UniversityModel } from '../src/index.js';

const SUMMER_2024 = 48;
const WINTER_2023 = 47;
const { model } = createSimulator({ seed: 5, today: '2024-03-20' });

function dated(occurrences: readonly Occurrence[]) {
  return occurrences.map((occurrence) => ({ ...occurrence, date: formatDay(occurrence.day) }));
}

/** Weekly series (same lecture, weekday and local start) with occurrences just before and after a date. */
function seriesAcross(model: UniversityModel, puId: number, pgid: number, switchDate: string): number {
  const switchDay = Date.parse(switchDate) / 86_400_000;
  const before = new Set<string>();
  const after = new Set<string>();
  for (const occurrence of model.occurrencesOfGroup(puId, pgid)) {
    const key = `${occurrence.lectureId} ${(occurrence.day + 3) % 7} ${occurrence.start}`;
    if (occurrence.day >= switchDay - 7 && occurrence.day < switchDay) before.add(key);
    if (occurrence.day > switchDay && occurrence.day <= switchDay + 7) after.add(key);
  }
  return [...before].filter((key) => after.has(key)).length;
}

describe('DST changes fall inside terms', () => {
  it.each([
    [SUMMER_2024, '2024-03-31'],
    [WINTER_2023, '2023-10-29'],
  ])('term %i: groups have series on both sides of %s at the same local time', (puId, switchDate) => {
    const groups = [...model.groups.keys()];
    const crossing = groups.filter((pgid) => seriesAcross(model, puId, pgid, switchDate) > 0);
    expect(crossing.length).toBeGreaterThan(groups.length * 0.9);
  });
});

describe('holidays', () => {
  it.each([
    [SUMMER_2024, '2024-05-20', '2024-05-26', 'Pentecost week'],
    [WINTER_2023, '2023-12-18', '2024-01-01', 'Christmas break and New Year'],
    [SUMMER_2024, '2024-05-01', '2024-05-01', 'May Day'],
  ])('term %i has no classes from %s to %s (%s), but before and after', (puId, from, to) => {
    const all = dated(model.occurrencesOfTerm(puId));
    expect(all.filter((o) => o.date >= from && o.date <= to)).toEqual([]);
    const fromDay = Date.parse(from) / 86_400_000;
    const toDay = Date.parse(to) / 86_400_000;
    expect(all.some((o) => o.day >= fromDay - 7 && o.day < fromDay)).toBe(true);
    expect(all.some((o) => o.day > toDay && o.day <= toDay + 7)).toBe(true);
  });

  it('the planning unit lists its holidays', () => {
    expect(model.planningUnit(SUMMER_2024)?.holidays.length).toBeGreaterThan(1);
  });
});

describe('the shape of a week', () => {
  const occurrences = dated(model.occurrencesOfTerm(SUMMER_2024));

  it('classes are on weekdays in the regular slots, exams at the end of the lecture period', () => {
    const slotStarts = ['08:00', '09:45', '11:30', '14:00', '15:45'];
    const examStarts = ['08:30', '10:30', '13:30'];
    const misplaced = occurrences.filter((occurrence) => {
      if ((occurrence.day + 3) % 7 >= 5) return true;
      if (examStarts.includes(occurrence.start)) return occurrence.date < '2024-07-05';
      return !slotStarts.includes(occurrence.start);
    });
    expect(misplaced).toEqual([]);
    expect(occurrences.some((o) => examStarts.includes(o.start))).toBe(true);
    expect(occurrences.some((o) => o.start === '08:00' && o.end === '11:15')).toBe(true);
  });

  it('most series are weekly, some biweekly', () => {
    const gaps = new Map<string, Set<number>>();
    for (const lectureId of model.lectures.keys()) {
      const days = model.occurrencesOfLecture(SUMMER_2024, lectureId).filter((o) => o.start === '08:00').map((o) => o.day);
      for (let index = 1; index < days.length; index += 1) {
        const key = String(lectureId);
        const set = gaps.get(key) ?? new Set<number>();
        set.add((days[index] as number) - (days[index - 1] as number));
        gaps.set(key, set);
      }
    }
    const minimalGaps = [...gaps.values()].map((set) => Math.min(...set));
    expect(minimalGaps.filter((gap) => gap === 7).length).toBeGreaterThan(minimalGaps.filter((gap) => gap === 14).length);
    expect(minimalGaps).toContain(14);
  });

  it('has 0 to 2 rooms and 0 to 2 lecturers, each case present', () => {
    const roomCounts = new Set(occurrences.map((o) => o.roomIds.length));
    const lecturerCounts = new Set(occurrences.map((o) => o.lecturerIds.length));
    expect([...roomCounts].sort()).toEqual([0, 1, 2]);
    expect([...lecturerCounts].sort()).toEqual([0, 1, 2]);
  });

  it('includes a few occurrences cancelled in advance', () => {
    const cancelled = occurrences.filter((o) => o.cancelled).length;
    expect(cancelled).toBeGreaterThan(0);
    expect(cancelled).toBeLessThan(occurrences.length * 0.05);
  });

  it('expectations leave cancelled occurrences out', () => {
    const pgid = [...model.groups.keys()][0] as number;
    const scheduled = model.occurrencesOfGroup(SUMMER_2024, pgid).filter((o) => !o.cancelled);
    const expected = createSimulator({ seed: 5, today: '2024-03-20' }).expectedOccurrences(SUMMER_2024, pgid);
    expect(expected.map((o) => o.occurrenceId)).toEqual(scheduled.map((o) => o.id));
    expect(expected[0]?.start).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00$/);
  });
});
