import { describe, expect, it } from 'vitest';
import { CATALOG_SCHEMA, catalogMigrations } from '@timetable/catalog-api';
import { CHANGES_SCHEMA, changesMigrations } from '@timetable/changes';
import { migrateToLatest, type MigrationSet } from '@timetable/db';
import { rollbackAll } from '@timetable/db/testing';
import { DEVELOPER_AUTH_SCHEMA, developerAuthMigrations } from '@timetable/developer-auth';
import { SYNC_SCHEMA, syncMigrations } from '@timetable/sync';
import { createMigratedKnex } from '@timetable/testing';
import { webhookMigrations, WEBHOOKS_SCHEMA } from '@timetable/webhook-dispatcher';

/**
 * Every service's migrations go up, all the way down and up again: a down() that was never run is a rollback
 * that fails the one time an operator needs it.
 */
const services: [string, string, MigrationSet][] = [
  ['catalog-api', CATALOG_SCHEMA, catalogMigrations],
  ['changes', CHANGES_SCHEMA, changesMigrations],
  ['developer-auth', DEVELOPER_AUTH_SCHEMA, developerAuthMigrations],
  ['sync', SYNC_SCHEMA, syncMigrations],
  ['webhook-dispatcher', WEBHOOKS_SCHEMA, webhookMigrations],
];

describe.each(services)('the migrations of %s', (_name, schema, migrations) => {
  it('go up, all the way down to an empty schema, and up again', async () => {
    const { knex, close } = await createMigratedKnex(schema, migrations);
    try {
      const tables = async () =>
        ((await knex('pg_tables').where({ schemaname: schema }).whereNot('tablename', 'like', 'knex_migrations%').select('tablename')) as { tablename: string }[])
          .map((row) => row.tablename)
          .sort();
      const migrated = await tables();
      expect(migrated.length).toBeGreaterThan(0);
      await rollbackAll(knex, schema, migrations);
      expect(await tables()).toEqual([]);
      await migrateToLatest(knex, schema, migrations);
      expect(await tables()).toEqual(migrated);
    } finally {
      await close();
    }
  });
});
