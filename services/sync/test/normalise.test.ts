import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expandSeries, instantToLocal } from '@timetable/calendar';
import { describe, expect, it } from 'vitest';
import type { EventData } from '@timetable/contracts';
import { normaliseCourses } from '../src/features/normalise/normalise-courses.js';
import { degreeTypeOf, normalisePrograms, semesterNumberOf } from '../src/features/normalise/normalise-programs.js';
import { lecturerDisplayName, normaliseRooms, roomTagsOf } from '../src/features/normalise/normalise-resources.js';
import { courseIdOf, programIdOf, roomIdOf, semesterIdOf, instructorIdOf } from '../src/features/normalise/upstream-ids.js';
import { DERIVATION_VERSION, feedRecordChanges, type FeedRecord } from '../src/features/diff/feed-records.js';
import { NextSnapshotBuilder } from '../src/features/diff/next-snapshot.js';
import { buildNextSnapshot, type WholeRead } from '../src/testing/whole-read.js';
import { ScopeCounts } from '../src/features/diff/scope-counts.js';
import type { IndexedEntity } from '../src/features/diff/diff-snapshots.js';
import { contentHash } from '../src/features/diff/content-hash.js';
import type { FeedOccurrence } from '../src/features/validate/feed-occurrence.js';
import type { UpstreamPlanningGroup } from '../src/features/read/upstream-types.js';

const RECORDED = fileURLToPath(new URL('../../../tools/starplan-sim/fixtures/recorded', import.meta.url));
const groups = JSON.parse(readFileSync(`${RECORDED}/getPgsExt_pu37_og35.json`, 'utf8'))[0] as UpstreamPlanningGroup[];
const unit = { id: 37, shortname: '2024 SoSe', name: 'Sommersemester 2024', startdate: '2024-03-15', enddate: '2024-09-30' };
const location = { id: 3, shortname: '*RO', name: 'Rosenheim (Hochschule)' };
const fwpm = groups[0] as UpstreamPlanningGroup;

function occurrence(start: string, end: string, overrides: Partial<FeedOccurrence> = {}): FeedOccurrence {
  return {
    start,
    end,
    timeZone: 'Europe/Berlin',
    summary: 'ML',
    roomShortnames: ['A4.05'],
    location: 'A4.05',
    lectureName: 'Maschinelles Lernen',
    lecturerNames: ['Prof. Dr. Anna Müller'],
    note: null,
    ...overrides,
  };
}

/** Weekly Monday 08:00-11:15 from 2024-03-18 to 2024-05-06, with the Easter Monday week missing; across DST. */
const weekly = ['03-18', '03-25', '04-08', '04-15', '04-22', '04-29', '05-06'].map((day) => occurrence(`2024-${day}T08:00:00`, `2024-${day}T11:15:00`));

function upstream(feed: FeedOccurrence[] = weekly): WholeRead {
  return {
    planningUnit: unit,
    programs: [{ id: 35, shortname: 'INF-M', name: 'Masterstudiengang Informatik' }],
    rooms: [{ id: 49, shortname: 'A4.05', name: 'Seminarraum *** Raumreservierung über Sekretariat BW', seats: 12, bshortname: 'A', location }],
    groupsByProgram: new Map([[35, groups]]),
    lecturersByProgram: new Map([[35, [{ id: 7, title: 'Prof. Dr.', firstname: 'Anna', name: 'Müller', email: 'anna.mueller@example.edu' }]]]),
    feeds: new Map([[fwpm.id, feed]]),
    unchangedFeeds: new Map(),
    feedHashes: new Map(),
    feedValidators: new Map(),
    bodies: new Map(),
  };
}

const dataOf = (entities: Iterable<{ entityType: string; data: Record<string, unknown> | null }>, type: string): Record<string, unknown>[] =>
  [...entities].filter((entity) => entity.entityType === type).map((entity) => {
    if (entity.data === null) throw new Error(`a ${type} without its data`);
    return entity.data;
  });

describe('programs and semesters', () => {
  it('derives degree type, faculty and activity from getogs', () => {
    const [program] = dataOf(normalisePrograms(upstream(), new Set([fwpm.id])), 'program');
    expect(program).toEqual({
      id: programIdOf(35),
      name: 'Masterstudiengang Informatik',
      shortName: 'INF-M',
      degreeType: 'master',
      facultyId: '35',
      isActive: true,
      upstreamId: 35,
    });
    expect(degreeTypeOf('Bachelorstudiengang Informatik')).toBe('bachelor');
    expect(degreeTypeOf('Zertifikat')).toBe('other');
  });

  it('numbers semesters by their trailing integer, else by position', () => {
    expect(semesterNumberOf('INF-B 3', 0)).toBe(3);
    expect(semesterNumberOf('INF-M/FWPM', 4)).toBe(5);
  });

  it('links a semester to its academic period only when its feed was read', () => {
    const semesters = dataOf(normalisePrograms(upstream(), new Set([fwpm.id])), 'semester');
    const withFeed = semesters.find((semester) => semester.upstreamId === fwpm.id);
    const withoutFeed = semesters.find((semester) => semester.upstreamId !== fwpm.id);
    expect(withFeed?.academicPeriodId).toEqual(expect.any(String));
    expect(withoutFeed?.academicPeriodId).toBeNull();
    expect(dataOf(normalisePrograms(upstream(), new Set([fwpm.id])), 'academicPeriod')).toHaveLength(1);
  });
});

describe('courses', () => {
  it('attributes a shared lecture to its home group when that group is mirrored, else to the first listing', () => {
    const courses = dataOf(normaliseCourses(upstream()), 'course');
    // Fachschaft INF's home group 13796 belongs to a program not in this snapshot: the first listing counts.
    expect(courses.find((course) => course.code === 'Fachschaft INF')?.semesterId).toBe(semesterIdOf(14119));
    const withHome = upstream();
    withHome.programs = [...withHome.programs, { id: 36, shortname: 'INF-B', name: 'Bachelorstudiengang Informatik' }];
    withHome.groupsByProgram.set(36, [{ id: 13796, shortname: 'INF-B 1', name: 'INF-B 1', lectures: [] }]);
    const attributed = dataOf(normaliseCourses(withHome), 'course').find((course) => course.code === 'Fachschaft INF');
    expect(attributed).toMatchObject({ programId: programIdOf(36), semesterId: semesterIdOf(13796) });
    expect(courses.find((course) => course.code === 'ML')).toMatchObject({
      id: courseIdOf(2960),
      name: 'Maschinelles Lernen',
      parentId: null,
      metadata: { upstreamId: 2960, pgid: fwpm.id },
      programId: programIdOf(35),
      semesterId: semesterIdOf(fwpm.id),
    });
  });
});

describe('rooms and instructors', () => {
  it('maps getros entries', () => {
    expect(dataOf(normaliseRooms(upstream().rooms), 'room')).toEqual([
      { id: roomIdOf(49), name: 'A4.05', building: 'A', campus: 'Rosenheim (Hochschule)', capacity: 12, tags: ['seminarraum'], upstreamId: 49 },
    ]);
    expect(roomTagsOf('Labor / Seminarraum')).toEqual(['labor', 'seminarraum']);
  });

  it('names lecturers the way the feed does', () => {
    expect(lecturerDisplayName({ id: 1, title: '', firstname: 'Anna', name: 'Müller' })).toBe('Anna Müller');
  });
});

describe('events', () => {
  const events = () => dataOf(buildNextSnapshot(upstream(), [], new Map()).entities.values(), 'event') as EventData[];

  it('describes a weekly slot as one series whose expansion gives back exactly the occurrences', () => {
    const [event, ...rest] = events();
    expect(rest).toHaveLength(0);
    expect(event).toMatchObject({
      title: 'Maschinelles Lernen',
      courseId: courseIdOf(2960),
      programId: programIdOf(35),
      semesterId: semesterIdOf(fwpm.id),
      roomIds: [roomIdOf(49)],
      instructorIds: [instructorIdOf(7)],
      dtstart: '2024-03-18T08:00:00',
      durationMinutes: 195,
      exdates: ['2024-04-01T08:00:00'],
      location: 'A4.05',
      note: null,
      timeZone: 'Europe/Berlin',
    });
    const expanded = expandSeries(event as EventData, 'Europe/Berlin').map((item) => instantToLocal(item.start, 'Europe/Berlin'));
    expect(expanded).toEqual(weekly.map((item) => item.start));
  });

  it('splits occurrences with another room into their own event and keeps ids stable', () => {
    const moved = weekly.map((item, index) => (index === 3 ? { ...item, roomShortnames: ['X1'], location: 'X1' } : item));
    const entities = dataOf(buildNextSnapshot(upstream(moved), [], new Map()).entities.values(), 'event') as EventData[];
    expect(entities).toHaveLength(2);
    expect(entities.find((event) => event.location === 'X1')).toMatchObject({ recurrenceRule: null, roomIds: [], dtstart: '2024-04-15T08:00:00' });
    expect(events()[0]?.id).toBe(events()[0]?.id);
  });

  it('resolves the course by lecture name when SUMMARY is unknown, and skips what matches nothing', () => {
    const feed = [occurrence('2024-03-19T10:00:00', '2024-03-19T11:30:00', { summary: '??' }), occurrence('2024-03-20T10:00:00', '2024-03-20T11:30:00', { summary: '??', lectureName: '??' })];
    const next = buildNextSnapshot(upstream(feed), [], new Map());
    expect(dataOf(next.entities.values(), 'event')).toHaveLength(1);
    expect(next.unmatchedOccurrences).toBe(1);
  });
});

const stored = (entities: Iterable<Omit<IndexedEntity, 'contentHash'>>): Map<string, IndexedEntity> =>
  new Map([...entities].map((entity) => [`${entity.entityType}:${entity.entityId}`, { ...entity, contentHash: contentHash(entity.data) }]));

describe('the safety valve', () => {

  it('keeps the previous entities of a failed pair', () => {
    const first = buildNextSnapshot(upstream(), [], new Map());
    const failing = upstream();
    failing.feeds.delete(fwpm.id);
    const next = buildNextSnapshot(failing, [{ og: 35, pgid: fwpm.id, message: 'HTTP 500' }], stored(first.entities.values()));
    expect([...next.entities.keys()].sort()).toEqual([...first.entities.keys()].sort());
    expect(dataOf(next.entities.values(), 'semester').find((semester) => semester.upstreamId === fwpm.id)?.academicPeriodId).toEqual(expect.any(String));
  });

  it('takes an empty feed where there were many events for a failure', () => {
    const many = ['10:00:00', '12:00:00', '14:00:00'].flatMap((time) => weekly.map((item) => ({ ...item, start: item.start.replace('08:00:00', time), end: item.end.replace('11:15:00', time.replace(':00:00', ':45:00')) })));
    const first = buildNextSnapshot(upstream(many), [], new Map());
    const next = buildNextSnapshot(upstream([]), [], stored(first.entities.values()));
    expect(next.failures).toEqual([{ og: 35, pgid: fwpm.id, message: expect.stringMatching(/implausible/) }]);
    expect(dataOf(next.entities.values(), 'event')).toHaveLength(3);
  });

  it('deactivates a program that vanished instead of deleting it', () => {
    const first = buildNextSnapshot(upstream(), [], new Map());
    const gone = { ...upstream(), programs: [], groupsByProgram: new Map(), lecturersByProgram: new Map(), feeds: new Map() };
    const [program] = dataOf(buildNextSnapshot(gone, [], stored(first.entities.values())).entities.values(), 'program');
    expect(program?.isActive).toBe(false);
  });
});

describe('a feed that came back unchanged', () => {
  /** The read as it is when fwpm's feed hashed as `hash` and was known: not parsed. */
  const unchanged = (hash: string, read = upstream()) => {
    read.feeds.delete(fwpm.id);
    read.unchangedFeeds.set(fwpm.id, hash);
    read.feedHashes.set(fwpm.id, hash);
    return read;
  };
  const firstBuild = () => {
    const parsed = upstream();
    parsed.feedHashes.set(fwpm.id, 'h1');
    const first = buildNextSnapshot(parsed, [], new Map());
    const record = first.builtFeeds.get(fwpm.id) as FeedRecord;
    return { first, record, records: new Map([[fwpm.id, record]]), previous: stored(first.entities.values()) };
  };

  it('keeps the events built from it before, unparsed, when nothing else they came from changed', () => {
    const { first, record, records, previous } = firstBuild();
    expect(record).toMatchObject({ bodyHash: 'h1', derivation: { og: 35, rooms: [['A4.05', 49]], lecturers: [['Prof. Dr. Anna Müller', 7]] } });
    const next = buildNextSnapshot(unchanged('h1'), [], previous, records);
    expect(next.reusedFeeds).toEqual(new Set([fwpm.id]));
    expect(next.feedsToReread).toEqual([]);
    expect(next.builtFeeds.size).toBe(0);
    expect(dataOf(next.entities.values(), 'event')).toEqual(dataOf(first.entities.values(), 'event'));
    expect([...next.entities.values()].filter((entity) => entity.entityType === 'event').every((entity) => entity.contentHash === contentHash(entity.data))).toBe(true);
  });

  it('is read again when a name it uses resolves differently, its group changed, its hash differs or there is no record', () => {
    const { records, previous } = firstBuild();
    const reread = [{ og: 35, pgid: fwpm.id }];
    const renumbered = unchanged('h1');
    renumbered.lecturersByProgram.set(35, [{ id: 8, title: 'Prof. Dr.', firstname: 'Anna', name: 'Müller' }]);
    expect(buildNextSnapshot(renumbered, [], previous, records).feedsToReread.map(({ og, group }) => ({ og, pgid: group.id }))).toEqual(reread);
    const regrouped = unchanged('h1');
    regrouped.groupsByProgram.set(35, groups.map((group) => (group.id === fwpm.id ? { ...group, lectures: group.lectures.slice(1) } : group)));
    expect(buildNextSnapshot(regrouped, [], previous, records).feedsToReread.map(({ og, group }) => ({ og, pgid: group.id }))).toEqual(reread);
    expect(buildNextSnapshot(unchanged('h2'), [], previous, records).feedsToReread.map(({ og, group }) => ({ og, pgid: group.id }))).toEqual(reread);
    expect(buildNextSnapshot(unchanged('h1'), [], previous, new Map()).feedsToReread.map(({ og, group }) => ({ og, pgid: group.id }))).toEqual(reread);
  });

  it('records: written for a clean build, kept for a failed or reused group, dropped for a vanished one', () => {
    const { first, record, records, previous } = firstBuild();
    const vanished: FeedRecord = { ...record, bodyHash: 'gone' };
    expect(feedRecordChanges(first, new Map([[999, vanished]]), new Map())).toEqual({ upserts: new Map([[fwpm.id, record]]), deletes: [999] });
    const withVanished = new Map([...records, [999, vanished]]);
    const failing = upstream();
    failing.feeds.delete(fwpm.id);
    const failed = buildNextSnapshot(failing, [{ og: 35, pgid: fwpm.id, message: 'HTTP 500' }], previous, withVanished);
    expect(feedRecordChanges(failed, withVanished, previous)).toEqual({ upserts: new Map(), deletes: [999] });
    const reused = buildNextSnapshot(unchanged('h1'), [], previous, withVanished);
    expect(feedRecordChanges(reused, withVanished, previous)).toEqual({ upserts: new Map(), deletes: [999] });
  });

  it('a group built while a failure kept some of its previous entities loses its record', () => {
    const { records, previous } = firstBuild();
    const parsed = upstream();
    parsed.feedHashes.set(fwpm.id, 'h2');
    const next = buildNextSnapshot(parsed, [{ og: 35, pgid: null, message: 'getles failed' }], previous, records);
    expect(next.builtFeeds.has(fwpm.id)).toBe(true);
    expect(feedRecordChanges(next, records, previous)).toEqual({ upserts: new Map(), deletes: [fwpm.id] });
  });
});

describe('building feed by feed', () => {
  it('hands over the data of what differs from the snapshot and lets go of all built data', () => {
    const first = buildNextSnapshot(upstream(), [], new Map());
    const previous = stored(first.entities.values());
    const moved = weekly.map((item, index) => (index === 3 ? { ...item, roomShortnames: ['X1'], location: 'X1' } : item));
    const read = upstream(moved);
    const counts = ScopeCounts.of(previous.values());
    const builder = new NextSnapshotBuilder({ upstream: read, failures: [], previous, counts, feedRecords: new Map() });
    builder.addFeed(35, fwpm, moved);
    const changedEvents = builder.takeChanged();
    // The series lost a week (now an exdate) and the moved week became an event of its own.
    expect(changedEvents.map((entity) => entity.entityType)).toEqual(['event', 'event']);
    expect(changedEvents.every((entity) => entity.data !== null && entity.contentHash === contentHash(entity.data))).toBe(true);
    const next = builder.finish();
    // The catalog is built at finish and did not change: nothing of it is handed over.
    expect(builder.takeChanged()).toEqual([]);
    expect([...next.entities.values()].filter((entity) => entity.data !== null)).toEqual([]);
    expect(next.entities.size).toBe(first.entities.size + 1);
  });
});

describe('DERIVATION_VERSION', () => {
  /**
   * What a fixed read derives to, per version. A change to normalise or series that moves this digest changes
   * what a feed yields for the same body, so it must raise DERIVATION_VERSION (otherwise every stored feed record
   * still matches and unchanged feeds keep the events built the old way) and pin the new digest here.
   */
  const DERIVED: Record<number, string> = {
    1: '64a63193a2d31c06f5d1bd79a4d5a4c960ef26bd2957a495d8ca2b8f627aec30',
    // The same entities from valid occurrences; what changed is which VEVENTs become occurrences (validate).
    2: '64a63193a2d31c06f5d1bd79a4d5a4c960ef26bd2957a495d8ca2b8f627aec30',
  };

  it('is raised whenever what an unchanged feed derives to changes', () => {
    const feed = [
      ...weekly,
      occurrence('2024-04-10T14:00:00', '2024-04-10T15:30:00', { roomShortnames: ['B1.01'], location: 'B1.01', summary: 'Extra' }),
      occurrence('2024-05-13T08:00:00', '2024-05-13T11:15:00', { note: 'findet online statt' }),
    ];
    const entities = [...buildNextSnapshot(upstream(feed), [], new Map()).entities.values()]
      .map((entity) => [entity.entityType, entity.entityId, [...entity.scopes].sort(), contentHash(entity.data)])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const digest = createHash('sha256').update(JSON.stringify(entities)).digest('hex');
    expect({ version: DERIVATION_VERSION, digest }, 'the derived entities changed: raise DERIVATION_VERSION and pin the new digest').toEqual({
      version: DERIVATION_VERSION,
      digest: DERIVED[DERIVATION_VERSION],
    });
  });
});
