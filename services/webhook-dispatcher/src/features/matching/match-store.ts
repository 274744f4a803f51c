import type { ChangeEvent } from '@timetable/contracts';
import type { Knex } from '@timetable/db';

// One statement per batch, whatever the number of changes and webhooks: the batch arrives as a JSON
// array, is joined with the matchable webhooks, the matched changes are kept for building bodies, and
// one pending delivery per (webhook, change) is inserted; a replayed change conflicts and adds nothing.
const MATCH_SQL = `
with incoming as (
  select * from json_to_recordset(cast(? as json)) as c(
    id uuid, entity_type text, entity_id text, action text, previous_data json, new_data json, changed_fields json,
    program_id uuid, semester_id uuid, course_id uuid, room_id uuid, instructor_id uuid, created_at timestamptz)
),
matches as (
  select distinct w.id as webhook_id, c.id as change_id, c.entity_type || '.' || c.action as event_type
  from incoming c
  join webhooks w on w.is_active and w.deleted_at is null and c.action = any(w.event_types)
  where case w.filter_scope
    when 'global' then true
    when 'program' then c.program_id = w.filter_program_id
    when 'semester' then c.semester_id = w.filter_semester_id
    when 'course' then c.course_id = w.filter_course_id
    when 'room' then c.room_id = w.filter_room_id
    when 'instructor' then c.instructor_id = w.filter_instructor_id
    else false
  end
),
stored as (
  insert into matched_changes (id, entity_type, entity_id, action, previous_data, new_data, changed_fields, created_at)
  select distinct on (c.id) c.id, c.entity_type, c.entity_id, c.action, c.previous_data, c.new_data, c.changed_fields, c.created_at
  from incoming c
  where c.id in (select change_id from matches)
  on conflict (id) do nothing
)
insert into deliveries (id, webhook_id, change_id, message_id, event_type, status, attempts, next_retry_at, created_at)
select gen_random_uuid(), m.webhook_id, m.change_id, m.change_id::text, m.event_type, 'pending', 0, ?, ?
from matches m
on conflict (webhook_id, change_id) where origin = 'match' do nothing`;

export interface MatchStoreDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
}

export class MatchStore {
  private readonly knex: Knex;

  constructor(deps: MatchStoreDeps) {
    this.knex = deps.knex;
  }

  /** Queues a pending delivery for every matching (webhook, change) pair; returns how many were new. */
  async queueMatches(changes: ChangeEvent[], now: Date): Promise<number> {
    if (changes.length === 0) return 0;
    const rows = changes.map((change) => ({
      id: change.id,
      entity_type: change.entityType,
      entity_id: change.entityId,
      action: change.action,
      previous_data: change.previousData,
      new_data: change.newData,
      changed_fields: change.changedFields,
      program_id: change.programId,
      semester_id: change.semesterId,
      course_id: change.courseId,
      room_id: change.roomId,
      instructor_id: change.instructorId,
      created_at: change.createdAt,
    }));
    const result = await this.knex.raw<{ rowCount: number }>(MATCH_SQL, [JSON.stringify(rows), now, now]);
    return result.rowCount;
  }
}
