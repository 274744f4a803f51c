/**
 * The personal feed end to end: the real sync reads the simulator, the projection feeds the catalog, and the
 * personal feed must hold the simulator's truth for the selection with the semester feeds' VEVENTs, and
 * follow an upstream cancellation after the next sync.
 */
import type { OccurrenceResource } from '@timetable/contracts';
import type { Simulator } from '@timetable/starplan-sim';
import { semesterIdOf } from '@timetable/sync/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeed, type ParsedFeedEvent } from './support/parse-feed.js';
import { ICAL_DOMAIN, startRealSyncSystem, type RealSyncSystem } from './support/real-sync-system.js';
import { expandListing, feedKeyOfTruth, futureSeriesMember, sortedKeys, truthOfGroup, truthOfTerm, type TruthOccurrence } from './support/simulator-truth.js';

const SEED = 11;
const NOW = new Date('2026-11-22T12:00:00.000Z');
const HORIZON_END = new Date(NOW.getTime() + 365 * 86_400_000);

let system: RealSyncSystem;
let simulator: Simulator;
/** Every VEVENT of every semester feed, by UID. */
let semesterFeedEvents: Map<string, ParsedFeedEvent>;

const groupIds = () => [...simulator.model.groups.keys()].sort((a, b) => a - b);
const feedKey = (event: ParsedFeedEvent) => [event.start, event.end, event.summary].join('|');
const inHorizon = (occurrence: TruthOccurrence) => occurrence.start >= NOW && occurrence.start < HORIZON_END;

async function feed(path: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string; events: ParsedFeedEvent[] }> {
  const response = await system.get(path, headers);
  const text = await response.text();
  return { status: response.status, etag: response.headers.get('etag') ?? '', events: response.status === 200 ? parseFeed(text) : [] };
}

/** A student's choice: every course of one group plus one course of another group. */
function studentCourses(): string[] {
  const [first, second] = groupIds();
  const own = new Set(truthOfGroup(simulator, first!).map((occurrence) => occurrence.courseId));
  const elective = truthOfGroup(simulator, second!).find((occurrence) => !own.has(occurrence.courseId))?.courseId;
  return [...own, ...(elective ? [elective] : [])];
}

beforeAll(async () => {
  system = await startRealSyncSystem({ seed: SEED, now: NOW });
  simulator = system.sim.simulator;
  expect(await system.sync()).toMatchObject({ status: 'succeeded', errors: [] });
  semesterFeedEvents = new Map();
  for (const pgid of groupIds()) {
    for (const event of (await feed(`/ical/${semesterIdOf(pgid)}`)).events) semesterFeedEvents.set(event.uid, event);
  }
});

afterAll(() => system?.close());

describe('the personal feed after a real sync', () => {
  it('holds exactly the selected courses occurrences of the next 365 days, each VEVENT as in its semester feed', async () => {
    const courseIds = studentCourses();
    const { status, events } = await feed(`/ical?courseIds=${courseIds.join(',')}`);
    expect(status).toBe(200);
    const expected = truthOfTerm(simulator).filter((occurrence) => courseIds.includes(occurrence.courseId) && inHorizon(occurrence));
    expect(expected.length).toBeGreaterThan(0);
    expect(sortedKeys(events, feedKey)).toEqual(sortedKeys(expected, feedKeyOfTruth));
    for (const event of events) expect(semesterFeedEvents.get(event.uid), event.uid).toEqual(event);
  });

  it('gives a group exactly its semester feed', async () => {
    for (const pgid of groupIds().slice(0, 3)) {
      const personal = await feed(`/ical?groupIds=${semesterIdOf(pgid)}`);
      expect(personal.events.length, `group ${pgid}`).toBeGreaterThan(0);
      expect(personal.events).toEqual((await feed(`/ical/${semesterIdOf(pgid)}`)).events);
    }
  });
});

describe('after an upstream cancellation and the next sync', () => {
  it('changes the ETag and no longer holds the cancelled occurrence', async () => {
    const pgid = groupIds()[0]!;
    const truth = truthOfGroup(simulator, pgid);
    // One entry per event: expanded as a calendar client would, to find a member inside a series.
    const listing = expandListing((await system.json<{ data: OccurrenceResource[] }>(`/semesters/${semesterIdOf(pgid)}/courses`)).data);
    const cancelled = [...new Set(truth.map((occurrence) => occurrence.courseId))]
      .map((courseId) => futureSeriesMember(truth, listing, courseId, NOW))
      .find((pick) => pick !== undefined);
    expect(cancelled).toBeDefined();
    const path = `/ical?courseIds=${cancelled!.courseId}`;
    const cancelledUid = `${cancelled!.eventId}-${cancelled!.localStart.slice(0, 10)}@${ICAL_DOMAIN}`;
    const before = await feed(path);
    expect(before.events.map((event) => event.uid)).toContain(cancelledUid);
    expect((await feed(path, { 'If-None-Match': before.etag })).status).toBe(304);

    simulator.cancelOccurrence({ occurrenceId: cancelled!.occurrenceId });
    expect(await system.sync()).toMatchObject({ status: 'succeeded', errors: [] });

    const after = await feed(path, { 'If-None-Match': before.etag });
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(before.etag);
    expect(after.events.map((event) => event.uid)).not.toContain(cancelledUid);
    expect(after.events.filter((event) => event.start === cancelled!.start.toISOString())).toEqual([]);
    const expected = truthOfTerm(simulator).filter((occurrence) => occurrence.courseId === cancelled!.courseId && inHorizon(occurrence));
    expect(sortedKeys(after.events, feedKey)).toEqual(sortedKeys(expected, feedKeyOfTruth));
  });
});
