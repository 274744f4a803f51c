import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CourseResource, InstructorResource, OccurrenceResource, ProgramResource, RoomResource, SemesterResource } from '@timetable/contracts';
import { startCatalog, type CatalogHarness } from './support/catalog-harness.js';
import { ids, universityStates } from './support/university-fixture.js';

let catalog: CatalogHarness;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function list<T>(path: string): Promise<T[]> {
  const { status, body } = await catalog.json<{ data: T[] }>(path);
  expect(status).toBe(200);
  return body.data;
}

async function names(path: string): Promise<string[]> {
  return (await list<{ name: string }>(path)).map((entry) => entry.name);
}

async function expectNotFound(path: string, kind: string, id: string): Promise<void> {
  const { status, body } = await catalog.json<{ error: { code: string; message: string } }>(path);
  expect(status).toBe(404);
  expect(body.error.code).toBe('NOT_FOUND');
  expect(body.error.message).toBe(`${kind} with id ${id} not found`);
}

beforeAll(async () => {
  catalog = await startCatalog();
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('/programs', () => {
  it('lists active programs by default, sorted by name, with ISO timestamps in milliseconds', async () => {
    const programs = await list<ProgramResource>('/programs');
    expect(programs.map((program) => program.name)).toEqual(['Informatik', 'Maschinenbau']);
    expect(programs[0]).toEqual({
      id: ids.informatik,
      name: 'Informatik',
      shortName: 'INF',
      degreeType: 'Bachelor',
      facultyId: 'fb-2',
      isActive: true,
      createdAt: '2026-01-10T12:00:00.000Z',
      updatedAt: '2026-01-10T12:00:00.000Z',
    });
  });

  it("returns only inactive programs for archived=true, active ones for anything else", async () => {
    expect(await names('/programs?archived=true')).toEqual(['Alte Informatik']);
    expect(await names('/programs?archived=false')).toEqual(['Informatik', 'Maschinenbau']);
  });

  it('filters by case-insensitive contains search and exact degreeType', async () => {
    expect(await names('/programs?search=INFORM')).toEqual(['Informatik']);
    expect(await names('/programs?search=%25')).toEqual([]);
    expect(await names('/programs?degreeType=Master')).toEqual(['Maschinenbau']);
    expect(await names('/programs?degreeType=master')).toEqual([]);
  });

  it('answers one program wrapped in data, 404 for unknown and malformed ids', async () => {
    expect((await catalog.json<{ data: ProgramResource }>(`/programs/${ids.archived}`)).body.data.name).toBe('Alte Informatik');
    await expectNotFound(`/programs/${ids.missingProgram}`, 'program', ids.missingProgram);
    await expectNotFound('/programs/not-a-uuid', 'program', 'not-a-uuid');
  });

  it("lists a program's semesters sorted by number, each with its program", async () => {
    const semesters = await list<SemesterResource>(`/programs/${ids.informatik}/semesters`);
    expect(semesters.map((semester) => semester.name)).toEqual(['INF 1', 'INF 2']);
    expect(semesters[0]?.program).toEqual({ id: ids.informatik, name: 'Informatik', shortName: 'INF' });
    await expectNotFound('/programs/x/semesters', 'program', 'x');
  });

  it("lists one entry per event of every semester's academic period of the program", async () => {
    const entries = await list<OccurrenceResource>(`/programs/${ids.informatik}/courses`);
    expect(entries.map((entry) => entry.id).sort()).toEqual(
      [ids.matheSpring, ids.uebungOnce, ids.matheYearEnd, ids.uebungSundayNight, ids.uebungMondayMidnight, ids.datenbankenOctober, ids.datenbankenFold].sort(),
    );
    expect(new Set(entries.map((entry) => entry.semester.id))).toEqual(new Set([ids.inf1, ids.inf2]));
    expect(await list(`/programs/${ids.maschinenbau}/courses`)).toEqual([]);
    await expectNotFound(`/programs/${ids.missingProgram}/courses`, 'program', ids.missingProgram);
  });
});

describe('/semesters', () => {
  it('lists every semester with nested program {id, name, shortName}, filtered by programId', async () => {
    const all = await list<SemesterResource>('/semesters');
    expect(all).toHaveLength(4);
    const inf2 = all.find((semester) => semester.id === ids.inf2);
    expect(inf2).toEqual({
      id: ids.inf2,
      programId: ids.informatik,
      name: 'INF 2',
      number: 2,
      academicPeriodId: ids.periodInf2,
      createdAt: '2026-01-10T12:00:00.000Z',
      updatedAt: '2026-01-10T12:00:00.000Z',
      program: { id: ids.informatik, name: 'Informatik', shortName: 'INF' },
    });
    expect((await list<SemesterResource>(`/semesters?programId=${ids.maschinenbau}`)).map((semester) => semester.id)).toEqual([ids.mb1]);
  });

  it('matches nothing for a malformed programId', async () => {
    expect(await list('/semesters?programId=nope')).toEqual([]);
  });

  it('answers the list entry as the single body, 404 otherwise', async () => {
    const single = (await catalog.json<{ data: SemesterResource }>(`/semesters/${ids.inf2}`)).body.data;
    expect(single).toEqual((await list<SemesterResource>('/semesters')).find((semester) => semester.id === ids.inf2));
    await expectNotFound('/semesters/123', 'semester', '123');
  });
});

describe('/semesters/:id/courses', () => {
  it('returns one entry per event, sorted by first start, with course, room, instructor and semester joined', async () => {
    const occurrences = await list<OccurrenceResource>(`/semesters/${ids.inf2}/courses`);
    expect(occurrences.map((entry) => entry.id)).toEqual([ids.matheSpring, ids.uebungOnce, ids.matheYearEnd, ids.uebungSundayNight, ids.uebungMondayMidnight]);
    const starts = occurrences.map((occurrence) => occurrence.startTime);
    expect([...starts].sort()).toEqual(starts);
    expect(occurrences[0]).toEqual({
      id: ids.matheSpring,
      summary: 'Mathematik 1',
      startTime: '2026-03-16T09:00:00.000Z',
      endTime: '2026-03-16T10:30:00.000Z',
      weekday: 1,
      recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260406T080000Z',
      excludedDates: [],
      course: { id: ids.mathe, name: 'Mathematik 1', code: 'MA1' },
      room: { id: ids.roomA101, name: 'A 1.01', building: 'A' },
      instructor: { id: ids.mueller, name: 'Prof. Müller' },
      semester: { id: ids.inf2, name: 'INF 2', program: { id: ids.informatik, name: 'Informatik' } },
    });
    for (const occurrence of occurrences) expect(occurrence.startTime).toMatch(ISO_MS);
  });

  it('uses the UTC weekday of the start: Monday 00:00 in Berlin is Sunday in UTC', async () => {
    const occurrences = await list<OccurrenceResource>(`/semesters/${ids.inf2}/courses`);
    const midnight = occurrences.find((occurrence) => occurrence.id === ids.uebungMondayMidnight);
    expect(midnight?.startTime).toBe('2027-01-03T23:00:00.000Z');
    expect(midnight?.weekday).toBe(0);
  });

  it('shows the first room and instructor, and room null plus instructor null for an event without either', async () => {
    const inf2 = await list<OccurrenceResource>(`/semesters/${ids.inf2}/courses`);
    const shared = inf2.find((occurrence) => occurrence.id === ids.uebungOnce);
    expect(shared?.room).toEqual({ id: ids.roomHoersaal, name: 'B 2.02, Hörsaal', building: 'B' });
    expect(shared?.instructor).toEqual({ id: ids.schmidt, name: 'Dr. Schmidt' });
    expect(shared?.recurrenceRule).toBeNull();
    const inf1 = await list<OccurrenceResource>(`/semesters/${ids.inf1}/courses`);
    const online = inf1.find((occurrence) => occurrence.id === ids.datenbankenOctober);
    expect(online?.room).toBeNull();
    expect(online?.instructor).toBeNull();
  });

  it('is empty for a semester without academic period and 404 for an unknown one', async () => {
    expect(await list(`/semesters/${ids.mb1}/courses`)).toEqual([]);
    await expectNotFound(`/semesters/${ids.missingProgram}/courses`, 'semester', ids.missingProgram);
  });

  it('sends an ETag and answers 304 to a matching If-None-Match', async () => {
    const first = await catalog.get(`/semesters/${ids.inf2}/courses`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const second = await catalog.get(`/semesters/${ids.inf2}/courses`, { 'If-None-Match': etag ?? '' });
    expect(second.status).toBe(304);
  });
});

describe('/courses', () => {
  it('lists courses alphabetically, case-insensitively', async () => {
    expect(await names('/courses')).toEqual(['Algorithmen', 'datenbanken', 'Mathematik 1', 'Übung, Straße & Café']);
    const [first] = await list<CourseResource>('/courses');
    expect(first).toEqual({ id: ids.algorithmen, name: 'Algorithmen', code: 'ALG', parentId: null, metadata: { credits: 5 } });
  });

  it('searches the name by case-insensitive contains', async () => {
    expect(await names('/courses?search=STRASSE')).toEqual([]);
    expect(await names('/courses?search=straße')).toEqual(['Übung, Straße & Café']);
    expect(await names('/courses?search=MATIK')).toEqual(['Mathematik 1']);
  });

  it('filters by periodId: courses with events in that academic period; a malformed one matches nothing', async () => {
    expect(await names(`/courses?periodId=${ids.periodInf2}`)).toEqual(['Mathematik 1', 'Übung, Straße & Café']);
    expect(await names(`/courses?periodId=${ids.periodInf1}`)).toEqual(['datenbanken']);
    expect(await names('/courses?periodId=x')).toEqual([]);
  });

  it('answers one course, 404 otherwise', async () => {
    expect((await catalog.json<{ data: CourseResource }>(`/courses/${ids.mathe}`)).body.data.code).toBe('MA1');
    await expectNotFound(`/courses/${ids.inf1}`, 'course', ids.inf1);
  });
});

describe('/rooms', () => {
  it('lists rooms by name; search is contains, building is exact', async () => {
    expect(await names('/rooms')).toEqual(['A 1.01', 'A 1.02', 'B 2.02, Hörsaal']);
    expect(await names('/rooms?search=hörsaal')).toEqual(['B 2.02, Hörsaal']);
    expect(await names('/rooms?building=A')).toEqual(['A 1.01', 'A 1.02']);
    expect(await names('/rooms?building=a')).toEqual([]);
    const room = (await catalog.json<{ data: RoomResource }>(`/rooms/${ids.roomA101}`)).body.data;
    expect(room).toEqual({ id: ids.roomA101, name: 'A 1.01', building: 'A', campus: 'Nord', capacity: 40, tags: ['beamer'] });
    await expectNotFound('/rooms/zzz', 'room', 'zzz');
  });
});

describe('/rooms/:id/schedule', () => {
  type Schedule = { room: RoomResource; period: { from: string; to: string }; courses: { id: string; summary: string; startTime: string; endTime: string; weekday: number }[] };

  it('defaults to now .. now + 180 days and lists events held there in any position, sorted by start', async () => {
    const { body } = await catalog.json<{ data: Schedule }>(`/rooms/${ids.roomA101}/schedule`);
    expect(body.data.room.id).toBe(ids.roomA101);
    expect(body.data.period).toEqual({ from: '2026-03-01T00:00:00.000Z', to: '2026-08-28T00:00:00.000Z' });
    expect(body.data.courses.map((entry) => entry.startTime)).toEqual([
      '2026-03-16T09:00:00.000Z',
      '2026-03-23T09:00:00.000Z',
      '2026-03-25T13:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
      '2026-04-06T08:00:00.000Z',
    ]);
    expect(body.data.courses[2]).toEqual({ id: ids.uebungOnce, summary: 'Übung, Straße & Café', startTime: '2026-03-25T13:00:00.000Z', endTime: '2026-03-25T14:30:00.000Z', weekday: 3 });
  });

  it('takes occurrences whose start lies in [from, to)', async () => {
    const { body } = await catalog.json<{ data: Schedule }>(`/rooms/${ids.roomA101}/schedule?from=2026-03-23T09:00:00.000Z&to=2026-03-30T08:00:00Z`);
    expect(body.data.courses.map((entry) => entry.startTime)).toEqual(['2026-03-23T09:00:00.000Z', '2026-03-25T13:00:00.000Z']);
    expect(body.data.period).toEqual({ from: '2026-03-23T09:00:00.000Z', to: '2026-03-30T08:00:00.000Z' });
  });

  it('answers 400 for malformed from or to and 404 for an unknown room', async () => {
    for (const query of ['from=yesterday', 'to=2026-13-01T00:00:00Z', 'from=2026-03-01']) {
      const { status, body } = await catalog.json<{ error: { code: string } }>(`/rooms/${ids.roomA101}/schedule?${query}`);
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
    }
    await expectNotFound(`/rooms/${ids.mathe}/schedule`, 'room', ids.mathe);
  });
});

describe('/instructors', () => {
  it('lists instructors by name with contains search, and one instructor, 404 otherwise', async () => {
    expect(await names('/instructors')).toEqual(['Dr. Schmidt', 'Prof. Müller']);
    expect(await names('/instructors?search=MÜLL')).toEqual(['Prof. Müller']);
    const instructor = (await catalog.json<{ data: InstructorResource }>(`/instructors/${ids.mueller}`)).body.data;
    expect(instructor).toEqual({ id: ids.mueller, name: 'Prof. Müller', email: 'mueller@example.edu', tags: [] });
    await expectNotFound('/instructors/none', 'instructor', 'none');
  });

  it('/instructors/:id/courses is not double-wrapped and includes events taught with others', async () => {
    const { status, body } = await catalog.json<{ instructor: InstructorResource; data: OccurrenceResource[] }>(`/instructors/${ids.mueller}/courses`);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['data', 'instructor']);
    expect(body.instructor.id).toBe(ids.mueller);
    expect(body.data.map((entry) => entry.id)).toEqual([ids.matheSpring, ids.uebungOnce]);
    await expectNotFound(`/instructors/${ids.mathe}/courses`, 'instructor', ids.mathe);
  });
});
