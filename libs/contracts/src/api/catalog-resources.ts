import { z } from 'zod';

// Response bodies of the catalog, week and search routes (interface spec "Resources and their fields").
const instant = z.iso.datetime();

export const programResource = z.object({
  id: z.uuid(),
  name: z.string(),
  shortName: z.string(),
  degreeType: z.string(),
  facultyId: z.string(),
  isActive: z.boolean(),
  createdAt: instant,
  updatedAt: instant,
});

/** A semester as every semester route returns it: list entry and single body alike carry the program. */
export const semesterResource = z.object({
  id: z.uuid(),
  programId: z.uuid(),
  name: z.string(),
  number: z.number().int().describe('Ordering within the program'),
  academicPeriodId: z.uuid().nullable().describe('Null means not yet linked to live timetable data'),
  createdAt: instant,
  updatedAt: instant,
  program: z.object({ id: z.uuid(), name: z.string(), shortName: z.string() }).nullable().describe('Null only while the program is not yet mirrored'),
});

export const courseResource = z.object({
  id: z.uuid(),
  name: z.string(),
  code: z.string(),
  parentId: z.uuid().nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

export const roomResource = z.object({
  id: z.uuid(),
  name: z.string(),
  building: z.string(),
  campus: z.string(),
  capacity: z.number().int(),
  tags: z.array(z.string()),
});

export const instructorResource = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  tags: z.array(z.string()),
});

/**
 * One event (a weekly series or a one-off), as semester, program and instructor course listings return it:
 * expanding recurrenceRule from startTime in the server's time zone (DTSTART;TZID=), minus excludedDates,
 * gives exactly the dated occurrences that week views, room schedules and feeds serve.
 */
export const occurrenceResource = z.object({
  id: z.uuid().describe('Event id, unique in the listing'),
  summary: z.string().describe('The course name'),
  startTime: instant.describe('Start of the first occurrence'),
  endTime: instant.describe('End of the first occurrence'),
  weekday: z.number().int().min(0).max(6).describe('UTC day of week of startTime, 0 = Sunday'),
  recurrenceRule: z
    .string()
    .nullable()
    .describe("RFC 5545 RRULE value without the 'RRULE:' prefix (e.g. FREQ=WEEKLY;INTERVAL=1;UNTIL=20260713T080000Z), for a DTSTART of startTime in the server's time zone; null for a one-off"),
  excludedDates: z
    .array(instant)
    .describe('Starts the rule would produce but that do not take place (holidays, cancellations), sorted; [] when none'),
  course: z.object({ id: z.uuid(), name: z.string(), code: z.string() }),
  room: z.object({ id: z.uuid(), name: z.string(), building: z.string() }).nullable().describe('First room of the event; null when the event has no (mirrored) room'),
  instructor: z.object({ id: z.uuid(), name: z.string() }).nullable().describe('First instructor of the event, or null'),
  semester: z.object({ id: z.uuid(), name: z.string(), program: z.object({ id: z.uuid(), name: z.string() }) }),
});

export const weekOccurrenceResource = z.object({
  eventId: z.uuid(),
  occurrenceDate: instant.describe("Local midnight of the occurrence's date, as an instant"),
  startTime: instant,
  durationMin: z.number().int(),
  originalEvent: z.object({
    id: z.uuid(),
    title: z.string(),
    courseId: z.uuid(),
    programId: z.uuid(),
    semesterId: z.uuid(),
    periodId: z.uuid(),
    roomId: z.uuid().nullable().describe('First room'),
    roomIds: z.array(z.uuid()),
    instructorIds: z.array(z.uuid()),
    recurrenceRule: z.string().nullable(),
    location: z.string(),
    note: z.string().nullable(),
  }),
});

export const weekResponse = z.object({
  week: z.string().regex(/^\d{4}-W\d{2}$/),
  dateRange: z.object({ start: instant, end: instant.describe('Last millisecond of Sunday') }),
  occurrences: z.array(weekOccurrenceResource),
});

export const roomScheduleEntry = z.object({
  id: z.uuid().describe('Event id'),
  summary: z.string(),
  startTime: instant,
  endTime: instant,
  weekday: z.number().int().min(0).max(6),
});

export const searchResults = z.object({
  courses: z.array(z.object({ id: z.uuid(), name: z.string(), code: z.string() })).max(20),
  rooms: z.array(z.object({ id: z.uuid(), name: z.string(), building: z.string() })).max(20),
  instructors: z.array(z.object({ id: z.uuid(), name: z.string(), email: z.string() })).max(20),
  programs: z.array(z.object({ id: z.uuid(), name: z.string(), shortName: z.string(), degreeType: z.string() })).max(20),
});

export const catalogStatistics = z.object({
  programs: z.number().int().describe('Active programs only'),
  semesters: z.number().int(),
  courses: z.number().int(),
  rooms: z.number().int(),
  instructors: z.number().int(),
  events: z.number().int(),
});

export type ProgramResource = z.infer<typeof programResource>;
export type SemesterResource = z.infer<typeof semesterResource>;
export type CourseResource = z.infer<typeof courseResource>;
export type RoomResource = z.infer<typeof roomResource>;
export type InstructorResource = z.infer<typeof instructorResource>;
export type OccurrenceResource = z.infer<typeof occurrenceResource>;
export type WeekOccurrenceResource = z.infer<typeof weekOccurrenceResource>;
export type WeekResponse = z.infer<typeof weekResponse>;
export type RoomScheduleEntry = z.infer<typeof roomScheduleEntry>;
export type SearchResults = z.infer<typeof searchResults>;
export type CatalogStatistics = z.infer<typeof catalogStatistics>;
