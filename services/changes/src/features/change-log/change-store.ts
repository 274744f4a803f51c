import type { ChangeEvent, ChangeRecord } from '@timetable/contracts';
import type { Knex } from '@timetable/db';

/** What GET /changes filters by, already validated; undefined means "no filter". */
export interface ChangeFilter {
  since?: Date;
  /** Case-insensitive contains. */
  entityType?: string;
  /** Case-insensitive contains. */
  action?: string;
  programId?: string;
  semesterId?: string;
  courseId?: string;
  /**
   * The position of the change a poller saw last (`after`): only changes appended after it, oldest first.
   * Without it, newest first.
   */
  afterPosition?: number;
  limit: number;
}

export interface ChangeStoreDeps {
  /** On the `changes` schema. */
  knex: Knex;
}

interface ChangeRow {
  id: string;
  entity_type: string;
  entity_id: string;
  action: ChangeRecord['action'];
  previous_data: Record<string, unknown> | null;
  new_data: Record<string, unknown> | null;
  changed_fields: string[];
  program_id: string | null;
  semester_id: string | null;
  course_id: string | null;
  room_id: string | null;
  instructor_id: string | null;
  sync_run_id: string;
  created_at: Date;
}

const TABLE = 'changes';
const COLUMNS = [
  'id', 'entity_type', 'entity_id', 'action', 'previous_data', 'new_data', 'changed_fields',
  'program_id', 'semester_id', 'course_id', 'room_id', 'instructor_id', 'created_at',
];

/** The change log in PostgreSQL. */
export class ChangeStore {
  private readonly knex: Knex;

  constructor(deps: ChangeStoreDeps) {
    this.knex = deps.knex;
  }

  /**
   * Inserts the changes whose id is new, in the order given; replays of known ids are ignored. This is the
   * log's only writer, and it holds the append lock from taking positions until its commit: an append that
   * commits later therefore always holds higher positions, and a reader paging by position (`after`) can
   * never pass a change that is still to commit. The lock leaves reads alone; appends (from every replica's
   * consumer) take turns, one short insert each.
   */
  async append(changes: ChangeEvent[]): Promise<void> {
    if (changes.length === 0) return;
    await this.knex.transaction(async (trx) => {
      await trx.raw('lock table ?? in share row exclusive mode', [TABLE]);
      await trx(TABLE).insert(changes.map(toRow)).onConflict('id').ignore();
    });
  }

  /** Where the change with this id lies in the log, or undefined when the log does not hold it. */
  async positionOf(id: string): Promise<number | undefined> {
    const row = await this.knex(TABLE).first<{ position: number } | undefined>('position').where('id', id);
    return row?.position;
  }

  /** Newest first, ties broken by id descending; after a position, oldest first by position. */
  async list(filter: ChangeFilter): Promise<ChangeRecord[]> {
    const query = this.knex(TABLE).select<ChangeRow[]>(COLUMNS);
    if (filter.afterPosition !== undefined) query.where('position', '>', filter.afterPosition);
    if (filter.since) query.where('created_at', '>=', filter.since);
    if (filter.entityType !== undefined) query.whereILike('entity_type', containsPattern(filter.entityType));
    if (filter.action !== undefined) query.whereILike('action', containsPattern(filter.action));
    if (filter.programId) query.where('program_id', filter.programId);
    if (filter.semesterId) query.where('semester_id', filter.semesterId);
    if (filter.courseId) query.where('course_id', filter.courseId);
    const order =
      filter.afterPosition === undefined ? [{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }] : [{ column: 'position', order: 'asc' }];
    const rows: ChangeRow[] = await query.orderBy(order).limit(filter.limit);
    return rows.map(toRecord);
  }

  async find(id: string): Promise<ChangeRecord | undefined> {
    const row = await this.knex(TABLE).first<ChangeRow | undefined>(COLUMNS).where('id', id);
    return row && toRecord(row);
  }
}

/** LIKE treats % and _ as wildcards; a filter value is literal text. */
function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

function toRow(change: ChangeEvent): Record<keyof ChangeRow, unknown> {
  return {
    id: change.id,
    entity_type: change.entityType,
    entity_id: change.entityId,
    action: change.action,
    // jsonb goes in as text: the pg driver would turn a top-level array into a Postgres array.
    previous_data: change.previousData === null ? null : JSON.stringify(change.previousData),
    new_data: change.newData === null ? null : JSON.stringify(change.newData),
    changed_fields: change.changedFields,
    program_id: change.programId,
    semester_id: change.semesterId,
    course_id: change.courseId,
    room_id: change.roomId,
    instructor_id: change.instructorId,
    sync_run_id: change.syncRunId,
    // As text, so Postgres keeps any sub-millisecond digits the producer sent.
    created_at: change.createdAt,
  };
}

function toRecord(row: ChangeRow): ChangeRecord {
  return {
    id: row.id,
    entityType: row.entity_type,
    entityId: row.entity_id,
    action: row.action,
    previousData: row.previous_data,
    newData: row.new_data,
    changedFields: row.changed_fields,
    programId: row.program_id,
    semesterId: row.semester_id,
    courseId: row.course_id,
    roomId: row.room_id,
    instructorId: row.instructor_id,
    createdAt: row.created_at.toISOString(),
  };
}
