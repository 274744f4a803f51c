import type { Migration } from '@timetable/db';
import type { Knex } from 'knex';

// Every table keeps the state's content hash (so a replayed state is skipped) and created/updated times.
function stateColumns(table: Knex.CreateTableBuilder): void {
  table.text('content_hash').notNullable();
  table.timestamp('created_at', { useTz: true }).notNullable();
  table.timestamp('updated_at', { useTz: true }).notNullable();
}

// Trigram indexes serve the case-insensitive `contains` filters (ILIKE '%term%').
function trigramIndex(knex: Knex, table: string, column: string): Knex.Raw {
  return knex.raw(`create index ?? on ?? using gin (?? public.gin_trgm_ops)`, [`${table}_${column}_trgm`, table, column]);
}

/** The projected catalog and the materialised occurrences of its events (docs/sync.md, "Time"). */
export const createCatalogTables: Migration = {
  async up(knex) {
    await knex.raw('create extension if not exists pg_trgm with schema public');
    await knex.schema.createTable('programs', (table) => {
      table.text('id').primary();
      table.text('name').notNullable();
      table.text('short_name').notNullable();
      table.text('degree_type').notNullable();
      table.text('faculty_id').notNullable();
      table.boolean('is_active').notNullable();
      table.integer('upstream_id').notNullable();
      stateColumns(table);
      table.index(['is_active', 'degree_type']);
    });
    await knex.schema.createTable('semesters', (table) => {
      table.text('id').primary();
      table.text('program_id').notNullable().index();
      table.text('name').notNullable();
      table.integer('number').notNullable();
      table.text('academic_period_id').index();
      table.integer('upstream_id').notNullable();
      table.integer('planning_unit_id').notNullable();
      stateColumns(table);
    });
    await knex.schema.createTable('academic_periods', (table) => {
      table.text('id').primary();
      table.text('program_id').notNullable();
      table.text('semester_id').notNullable();
      table.text('name').notNullable();
      table.text('start_date').notNullable();
      table.text('end_date').notNullable();
      table.integer('planning_unit_id').notNullable();
      stateColumns(table);
    });
    await knex.schema.createTable('courses', (table) => {
      table.text('id').primary();
      table.text('name').notNullable();
      table.text('code').notNullable();
      table.text('parent_id');
      table.jsonb('metadata').notNullable();
      table.text('program_id');
      table.text('semester_id');
      stateColumns(table);
    });
    await knex.schema.createTable('rooms', (table) => {
      table.text('id').primary();
      table.text('name').notNullable();
      table.text('building').notNullable().index();
      table.text('campus').notNullable();
      table.integer('capacity').notNullable();
      table.jsonb('tags').notNullable();
      table.integer('upstream_id').notNullable();
      stateColumns(table);
    });
    await knex.schema.createTable('instructors', (table) => {
      table.text('id').primary();
      table.text('name').notNullable();
      table.text('email').notNullable();
      table.jsonb('tags').notNullable();
      table.integer('upstream_id').notNullable();
      stateColumns(table);
    });
    await createEventTables(knex);
    for (const [table, column] of [
      ['programs', 'name'],
      ['programs', 'short_name'],
      ['courses', 'name'],
      ['courses', 'code'],
      ['rooms', 'name'],
      ['instructors', 'name'],
    ] as const) {
      await trigramIndex(knex, table, column);
    }
  },
  async down(knex) {
    for (const table of ['event_instructors', 'event_rooms', 'occurrences', 'events', 'instructors', 'rooms', 'courses', 'academic_periods', 'semesters', 'programs']) {
      await knex.schema.dropTableIfExists(table);
    }
  },
};

async function createEventTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (table) => {
    table.text('id').primary();
    table.text('title').notNullable();
    table.text('course_id').notNullable();
    table.text('program_id').notNullable();
    table.text('semester_id').notNullable();
    table.text('period_id').notNullable();
    table.jsonb('room_ids').notNullable();
    table.jsonb('instructor_ids').notNullable();
    table.text('time_zone').notNullable();
    table.text('dtstart').notNullable();
    table.integer('duration_minutes').notNullable();
    table.text('recurrence_rule');
    table.jsonb('exdates').notNullable();
    table.text('location').notNullable();
    table.text('note');
    // Raised on every change of the event: the iCal SEQUENCE.
    table.integer('sequence').notNullable();
    stateColumns(table);
    table.index(['period_id', 'course_id']);
    table.index(['course_id']);
  });
  await knex.schema.createTable('occurrences', (table) => {
    table.text('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
    table.timestamp('start_time', { useTz: true }).notNullable();
    table.timestamp('end_time', { useTz: true }).notNullable();
    // Calendar date of the start in the service's TIME_ZONE (iCal UID, week occurrenceDate).
    table.text('local_date').notNullable();
    table.text('semester_id').notNullable();
    table.text('period_id').notNullable();
    table.text('course_id').notNullable();
    table.text('first_room_id');
    table.text('first_instructor_id');
    table.primary(['event_id', 'start_time']);
    table.index(['start_time']);
    table.index(['period_id', 'start_time']);
    table.index(['semester_id', 'start_time']);
    table.index(['course_id', 'start_time']);
  });
  for (const [table, column] of [
    ['event_rooms', 'room_id'],
    ['event_instructors', 'instructor_id'],
  ] as const) {
    await knex.schema.createTable(table, (builder) => {
      builder.text('event_id').notNullable().references('id').inTable('events').onDelete('CASCADE');
      builder.text(column).notNullable();
      builder.integer('position').notNullable();
      builder.primary(['event_id', column]);
      builder.index([column]);
    });
  }
}
