import type { EntityDataByType, EntityState, EntityType } from '@timetable/contracts';

export type Row = Record<string, unknown>;

/** The table each entity type is projected into. */
export const TABLE_OF: Record<EntityType, string> = {
  program: 'programs',
  semester: 'semesters',
  academicPeriod: 'academic_periods',
  course: 'courses',
  room: 'rooms',
  instructor: 'instructors',
  event: 'events',
};

type RowMappers = { [T in EntityType]: (data: EntityDataByType[T]) => Row };

// jsonb columns get JSON text: node-postgres would turn a JS array into a Postgres array literal.
const json = (value: unknown): string => JSON.stringify(value);

const rowMappers: RowMappers = {
  program: (data) => ({
    id: data.id,
    name: data.name,
    short_name: data.shortName,
    degree_type: data.degreeType,
    faculty_id: data.facultyId,
    is_active: data.isActive,
    upstream_id: data.upstreamId,
  }),
  semester: (data) => ({
    id: data.id,
    program_id: data.programId,
    name: data.name,
    number: data.number,
    academic_period_id: data.academicPeriodId,
    upstream_id: data.upstreamId,
    planning_unit_id: data.planningUnitId,
  }),
  academicPeriod: (data) => ({
    id: data.id,
    program_id: data.programId,
    semester_id: data.semesterId,
    name: data.name,
    start_date: data.startDate,
    end_date: data.endDate,
    planning_unit_id: data.planningUnitId,
  }),
  course: (data) => ({
    id: data.id,
    name: data.name,
    code: data.code,
    parent_id: data.parentId,
    metadata: json(data.metadata),
    program_id: data.programId,
    semester_id: data.semesterId,
  }),
  room: (data) => ({
    id: data.id,
    name: data.name,
    building: data.building,
    campus: data.campus,
    capacity: data.capacity,
    tags: json(data.tags),
    upstream_id: data.upstreamId,
  }),
  instructor: (data) => ({
    id: data.id,
    name: data.name,
    email: data.email,
    tags: json(data.tags),
    upstream_id: data.upstreamId,
  }),
  event: (data) => ({
    id: data.id,
    title: data.title,
    course_id: data.courseId,
    program_id: data.programId,
    semester_id: data.semesterId,
    period_id: data.periodId,
    room_ids: json(data.roomIds),
    instructor_ids: json(data.instructorIds),
    time_zone: data.timeZone,
    dtstart: data.dtstart,
    duration_minutes: data.durationMinutes,
    recurrence_rule: data.recurrenceRule,
    exdates: json(data.exdates),
    location: data.location,
    note: data.note,
    sequence: 0,
  }),
};

/**
 * The row of a validated entity. created_at is the first state's time: the upsert never overwrites it,
 * so it stays the moment this store first saw the entity.
 */
export function rowOf<T extends EntityType>(type: T, data: EntityDataByType[T], state: EntityState): Row {
  const mapper = rowMappers[type] as (value: EntityDataByType[T]) => Row;
  return {
    ...mapper(data),
    content_hash: state.contentHash,
    created_at: new Date(state.updatedAt),
    updated_at: new Date(state.updatedAt),
  };
}
