/**
 * End to end without mocks between upstream and catalog: the real sync reads the simulator over HTTP, its
 * outbox feeds the real projection, and the catalog routes must serve exactly the simulator's ground truth.
 */
import { instantToLocal } from '@timetable/calendar';
import { addDaysToLocalDate, isoWeekOfDate, mondayOfIsoWeek } from '@timetable/calendar/testing';
import type { CatalogStatistics, OccurrenceResource, SemesterResource, WeekResponse } from '@timetable/contracts';
import { formatDay, type Simulator } from '@timetable/starplan-sim';
import { semesterIdOf } from '@timetable/sync/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeed, type ParsedFeedEvent } from './support/parse-feed.js';
import { ICAL_DOMAIN, startRealSyncSystem, TIME_ZONE, type RealSyncSystem } from './support/real-sync-system.js';
import {
  expandListing,
  feedKeyOfTruth,
  futureSeriesMember,
  listingKeyOf,
  listingKeyOfTruth,
  onLocalDays,
  sortedKeys,
  truthOfGroup,
  truthOfTerm,
  weekKeyOf,
  weekKeyOfTruth,
  type TruthOccurrence,
} from './support/simulator-truth.js';

const SEED = 7;
const NOW = new Date('2026-11-22T12:00:00.000Z');
const HORIZON_END = new Date(NOW.getTime() + 365 * 86_400_000);
const UID_PATTERN = new RegExp(`^[0-9a-f-]{36}-(\\d{4}-\\d{2}-\\d{2})@${ICAL_DOMAIN.replaceAll('.', '\\.')}$`);

let system: RealSyncSystem;
let simulator: Simulator;

const groupIds = () => [...simulator.model.groups.keys()].sort((a, b) => a - b);
/** One entry per event of the group's semester. */
const listing = async (pgid: number) => (await system.json<{ data: OccurrenceResource[] }>(`/semesters/${semesterIdOf(pgid)}/courses`)).data;
/** The dated occurrences of that listing, as a calendar client expands them. */
const expandedListing = async (pgid: number) => expandListing(await listing(pgid));
const week = (label: string) => system.json<WeekResponse>(`/week/${label}`);

async function feed(pgid: number): Promise<ParsedFeedEvent[]> {
  const response = await system.get(`/ical/${semesterIdOf(pgid)}`);
  expect(response.status).toBe(200);
  return parseFeed(await response.text());
}

/** What the feed must hold: the group's occurrences starting within the 365 days from the fake now. */
const feedTruth = (pgid: number): TruthOccurrence[] =>
  truthOfGroup(simulator, pgid).filter((occurrence) => occurrence.start >= NOW && occurrence.start < HORIZON_END);

function expectFeedMatchesTruth(events: ParsedFeedEvent[], pgid: number): void {
  expect(sortedKeys(events, (event) => [event.start, event.end, event.summary].join('|'))).toEqual(sortedKeys(feedTruth(pgid), feedKeyOfTruth));
  expect(new Set(events.map((event) => event.uid)).size).toBe(events.length);
  for (const event of events) {
    expect(event.hasRrule).toBe(false);
    expect(UID_PATTERN.exec(event.uid)?.[1]).toBe(instantToLocal(new Date(event.start), TIME_ZONE).slice(0, 10));
  }
}

async function expectWeekMatchesTruth(label: string): Promise<WeekResponse> {
  const body = await week(label);
  const [year, number] = label.split('-W').map(Number) as [number, number];
  const monday = mondayOfIsoWeek(year, number);
  const expected = onLocalDays(truthOfTerm(simulator), monday, addDaysToLocalDate(monday, 6));
  expect(sortedKeys(body.occurrences, weekKeyOf)).toEqual(sortedKeys(expected, weekKeyOfTruth));
  return body;
}

beforeAll(async () => {
  system = await startRealSyncSystem({ seed: SEED, now: NOW });
  simulator = system.sim.simulator;
  const result = await system.sync();
  expect(result).toMatchObject({ status: 'succeeded', planningUnitId: simulator.model.currentPuId, errors: [] });
});

afterAll(() => system?.close());

describe('the catalog after the first real sync', () => {
  it('/statistics counts what the simulator serves', async () => {
    const { model } = simulator;
    const events = await system.snapshotCount('event');
    expect(events).toBeGreaterThan(0);
    expect((await system.json<{ data: CatalogStatistics }>('/statistics')).data).toEqual({
      programs: model.programs.size,
      semesters: model.groups.size,
      courses: new Set([...model.groups.values()].flatMap((group) => group.lectureIds)).size,
      rooms: model.rooms.size,
      instructors: [...model.lecturers.values()].filter((lecturer) => lecturer.ogIds.length > 0).length,
      events,
    });
  });

  it('lists every semester, linked to its academic period', async () => {
    const semesters = (await system.json<{ data: SemesterResource[] }>('/semesters')).data;
    expect(semesters.map((semester) => semester.id).sort()).toEqual(groupIds().map(semesterIdOf).sort());
    expect(semesters.every((semester) => semester.academicPeriodId !== null)).toBe(true);
  });

  it('/semesters/:id/courses of every semester lists each event once, and expands to exactly the expected occurrences', async () => {
    for (const pgid of groupIds()) {
      const entries = await listing(pgid);
      expect(new Set(entries.map((entry) => entry.id)).size, `group ${pgid}`).toBe(entries.length);
      expect(sortedKeys(expandListing(entries), listingKeyOf), `group ${pgid}`).toEqual(sortedKeys(truthOfGroup(simulator, pgid), listingKeyOfTruth));
      expect(entries.every((entry) => entry.semester.id === semesterIdOf(pgid))).toBe(true);
    }
  });

  it('keeps local times across the DST change of 2026-10-25 (UTC+2 before, UTC+1 after)', async () => {
    const around = onLocalDays(truthOfTerm(simulator), '2026-10-19', '2026-11-01');
    const offsetHours = (occurrence: TruthOccurrence) => (Date.parse(`${occurrence.localStart}Z`) - occurrence.start.getTime()) / 3_600_000;
    const before = around.filter((occurrence) => occurrence.localStart < '2026-10-25T03:00:00');
    const after = around.filter((occurrence) => occurrence.localStart >= '2026-10-25T03:00:00');
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(before.map(offsetHours))).toEqual(new Set([2]));
    expect(new Set(after.map(offsetHours))).toEqual(new Set([1]));
    // The instants above are what the catalog serves: W43 and W44 as week views.
    await expectWeekMatchesTruth('2026-W43');
    await expectWeekMatchesTruth('2026-W44');
  });

  it('has no occurrences in the holiday weeks, like the simulator: series spanning a break exclude its dates', async () => {
    const breaks = simulator.model.currentPlanningUnit.holidays.filter((holiday) => holiday.to > holiday.from);
    expect(breaks.length).toBeGreaterThan(0);
    const inBreak = (instant: string, from: number, to: number) => {
      const day = instantToLocal(new Date(instant), TIME_ZONE).slice(0, 10);
      return day >= formatDay(from) && day <= formatDay(to);
    };
    for (const { from, to } of breaks) {
      expect(onLocalDays(truthOfTerm(simulator), formatDay(from), formatDay(to))).toEqual([]);
      let excludedInBreak = 0;
      for (const pgid of groupIds().slice(0, 12)) {
        const entries = await listing(pgid);
        expect(expandListing(entries).filter((occurrence) => inBreak(occurrence.startTime, from, to))).toEqual([]);
        excludedInBreak += entries.flatMap((entry) => entry.excludedDates).filter((instant) => inBreak(instant, from, to)).length;
      }
      expect(excludedInBreak).toBeGreaterThan(0);
    }
  });

  it('/week/2026-W43 is the 169-hour week and holds exactly the expected occurrences', async () => {
    const body = await expectWeekMatchesTruth('2026-W43');
    expect(body.dateRange).toEqual({ start: '2026-10-18T22:00:00.000Z', end: '2026-10-25T22:59:59.999Z' });
    expect(body.occurrences.length).toBeGreaterThan(0);
    const starts = body.occurrences.map((occurrence) => occurrence.startTime);
    expect(starts).toEqual([...starts].sort());
  });

  it('/week/2026-W53 (28 December to 3 January) holds exactly the expected occurrences', async () => {
    const body = await expectWeekMatchesTruth('2026-W53');
    expect(body.dateRange).toEqual({ start: '2026-12-27T23:00:00.000Z', end: '2027-01-03T22:59:59.999Z' });
  });

  it('/ical/:semesterId has one VEVENT per expected occurrence within 365 days of now, with unique UIDs', async () => {
    const ids = groupIds();
    for (const pgid of [ids[0]!, ids[Math.floor(ids.length / 2)]!, ids.at(-1)!]) {
      const events = await feed(pgid);
      expect(events.length).toBeGreaterThan(0);
      expectFeedMatchesTruth(events, pgid);
    }
  });
});

describe('after churn upstream and a second sync', () => {
  interface Churned {
    pgid: number;
    renamed: { lectureId: number; courseId: string; name: string };
    moved: TruthOccurrence & { eventId: string; roomName: string };
    cancelled: TruthOccurrence & { eventId: string };
    feedBefore: Map<string, ParsedFeedEvent>;
  }
  let churned: Churned;

  beforeAll(async () => {
    for (const pgid of groupIds()) {
      const truth = truthOfGroup(simulator, pgid);
      const occurrences = await expandedListing(pgid);
      const courses = [...new Set(truth.filter((occurrence) => occurrence.start > NOW).map((occurrence) => occurrence.courseId))];
      const picks = courses.map((courseId) => futureSeriesMember(truth, occurrences, courseId, NOW)).filter((pick) => pick !== undefined);
      const [renamedPick, movedPick, cancelledPick] = picks;
      if (!renamedPick || !movedPick || !cancelledPick) continue;
      const newRoom = [...simulator.model.rooms.values()].find((room) => room.shortname !== movedPick.room?.name)!;
      const name = `${renamedPick.summary} (neu)`;
      simulator.renameLecture({ lectureId: renamedPick.lectureId, name });
      simulator.moveRoom({ occurrenceId: movedPick.occurrenceId, roomIds: [newRoom.id] });
      simulator.cancelOccurrence({ occurrenceId: cancelledPick.occurrenceId });
      churned = {
        pgid,
        renamed: { lectureId: renamedPick.lectureId, courseId: renamedPick.courseId, name },
        moved: { ...movedPick, roomName: newRoom.shortname },
        cancelled: cancelledPick,
        feedBefore: new Map((await feed(pgid)).map((event) => [event.uid, event])),
      };
      break;
    }
    expect(churned).toBeDefined();
    // The feeds above were rendered before this sync; the projection's cache bump must make them stale.
    const result = await system.sync();
    expect(result).toMatchObject({ status: 'succeeded', errors: [] });
    expect(result.updated).toBeGreaterThan(0);
  });

  it('lists the cancelled occurrence among its series\' excludedDates', async () => {
    const entry = (await listing(churned.pgid)).find((candidate) => candidate.id === churned.cancelled.eventId);
    expect(entry?.recurrenceRule).not.toBeNull();
    expect(entry?.excludedDates).toContain(churned.cancelled.start.toISOString());
  });

  it('serves the changed semester exactly as the simulator now describes it', async () => {
    const occurrences = await expandedListing(churned.pgid);
    expect(sortedKeys(occurrences, listingKeyOf)).toEqual(sortedKeys(truthOfGroup(simulator, churned.pgid), listingKeyOfTruth));
    const at = (occurrence: TruthOccurrence) => occurrences.filter((entry) => entry.course.id === occurrence.courseId && entry.startTime === occurrence.start.toISOString());
    expect(at(churned.moved).map((entry) => entry.room?.name)).toEqual([churned.moved.roomName]);
    expect(at(churned.cancelled)).toEqual([]);
    const renamed = occurrences.filter((entry) => entry.course.id === churned.renamed.courseId);
    expect(renamed.length).toBeGreaterThan(0);
    expect(renamed.every((entry) => entry.summary === churned.renamed.name && entry.course.name === churned.renamed.name)).toBe(true);
    expect((await system.json<{ data: CatalogStatistics }>('/statistics')).data.events).toBe(await system.snapshotCount('event'));
  });

  it('shows the change in the week views', async () => {
    for (const occurrence of [churned.moved, churned.cancelled]) {
      const body = await expectWeekMatchesTruth(isoWeekOfDate(occurrence.localStart.slice(0, 10)).label);
      const served = body.occurrences.filter((entry) => entry.originalEvent.courseId === occurrence.courseId && entry.startTime === occurrence.start.toISOString());
      expect(served.length).toBe(occurrence === churned.cancelled ? 0 : 1);
    }
  });

  it('raises SEQUENCE of the changed events only; unchanged events keep SEQUENCE and DTSTAMP', async () => {
    const after = await feed(churned.pgid);
    expectFeedMatchesTruth(after, churned.pgid);
    const renamedEvents = new Set([...churned.feedBefore.values()].filter((event) => event.summary !== churned.renamed.name && after.some((next) => next.uid === event.uid && next.summary === churned.renamed.name)).map((event) => event.eventId));
    expect(renamedEvents.size).toBeGreaterThan(0);
    const changed = new Set([...renamedEvents, churned.moved.eventId, churned.cancelled.eventId]);
    const risen = new Set<string>();
    for (const event of after) {
      const before = churned.feedBefore.get(event.uid);
      if (!before) continue;
      if (changed.has(event.eventId)) {
        expect(event.sequence, event.uid).toBeGreaterThan(before.sequence);
        expect(event.stamp >= before.stamp, event.uid).toBe(true);
        risen.add(event.eventId);
      } else {
        expect({ sequence: event.sequence, stamp: event.stamp }, event.uid).toEqual({ sequence: before.sequence, stamp: before.stamp });
      }
    }
    // Each changed series still has occurrences in the feed, so each one was seen rising.
    expect([...changed].filter((eventId) => !risen.has(eventId))).toEqual([]);
  });
});
