import { z } from 'zod';

/**
 * The canonical entities sync derives from StarPlan, as carried in `timetable.entities.v1` (`data`) and in
 * change records (`previousData`/`newData`). Ids are UUIDv5 of upstream keys, stable across syncs.
 * Local date-times are floating wall-clock strings `YYYY-MM-DDTHH:mm:ss` in the event's `timeZone`.
 */
export const localDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, 'YYYY-MM-DDTHH:mm:ss');

export const programData = z.object({
  id: z.uuid(),
  name: z.string(),
  shortName: z.string(),
  degreeType: z.string(),
  facultyId: z.string(),
  isActive: z.boolean(),
  upstreamId: z.number().int(),
});

export const semesterData = z.object({
  id: z.uuid(),
  programId: z.uuid(),
  name: z.string(),
  number: z.number().int(),
  academicPeriodId: z.uuid().nullable(),
  upstreamId: z.number().int(),
  planningUnitId: z.number().int(),
});

export const academicPeriodData = z.object({
  id: z.uuid(),
  planningUnitId: z.number().int(),
  programId: z.uuid(),
  semesterId: z.uuid(),
  name: z.string(),
  startDate: z.iso.date(),
  endDate: z.iso.date(),
});

export const courseData = z.object({
  id: z.uuid(),
  name: z.string(),
  code: z.string(),
  parentId: z.uuid().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** The program and semester of the lecture's home group, or of the first group listing it. */
  programId: z.uuid().nullable(),
  semesterId: z.uuid().nullable(),
});

export const roomData = z.object({
  id: z.uuid(),
  name: z.string(),
  building: z.string(),
  campus: z.string(),
  capacity: z.number().int(),
  tags: z.array(z.string()),
  upstreamId: z.number().int(),
});

export const instructorData = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  tags: z.array(z.string()),
  upstreamId: z.number().int(),
});

/** A series of occurrences (or a one-off when recurrenceRule is null), expanded by the catalog. */
export const eventData = z.object({
  id: z.uuid(),
  title: z.string(),
  courseId: z.uuid(),
  programId: z.uuid(),
  semesterId: z.uuid(),
  periodId: z.uuid(),
  roomIds: z.array(z.uuid()),
  instructorIds: z.array(z.uuid()),
  timeZone: z.string(),
  dtstart: localDateTime,
  durationMinutes: z.number().int().positive(),
  recurrenceRule: z.string().nullable(),
  exdates: z.array(localDateTime),
  location: z.string(),
  note: z.string().nullable(),
});

export const entitySchemas = {
  program: programData,
  semester: semesterData,
  academicPeriod: academicPeriodData,
  course: courseData,
  room: roomData,
  instructor: instructorData,
  event: eventData,
} as const;

export type EntityType = keyof typeof entitySchemas;
export const ENTITY_TYPES = Object.keys(entitySchemas) as EntityType[];

export type ProgramData = z.infer<typeof programData>;
export type SemesterData = z.infer<typeof semesterData>;
export type AcademicPeriodData = z.infer<typeof academicPeriodData>;
export type CourseData = z.infer<typeof courseData>;
export type RoomData = z.infer<typeof roomData>;
export type InstructorData = z.infer<typeof instructorData>;
export type EventData = z.infer<typeof eventData>;

export interface EntityDataByType {
  program: ProgramData;
  semester: SemesterData;
  academicPeriod: AcademicPeriodData;
  course: CourseData;
  room: RoomData;
  instructor: InstructorData;
  event: EventData;
}
