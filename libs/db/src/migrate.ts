import type { Knex } from 'knex';

/** A migration is code, not a file on disk, so it runs the same from sources (tsx, vitest) and from dist/. */
export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Named migrations; names start with a UTC timestamp so their order is their name order. */
export type MigrationSet = Record<string, Migration>;

class InMemoryMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly migrations: MigrationSet) {}

  getMigrations(): Promise<string[]> {
    return Promise.resolve(Object.keys(this.migrations).sort());
  }

  getMigrationName(name: string): string {
    return name;
  }

  getMigration(name: string): Promise<Knex.Migration> {
    const migration = this.migrations[name];
    if (!migration) throw new Error(`Unknown migration ${name}`);
    return Promise.resolve(migration);
  }
}

/**
 * Creates the service's schema if needed and applies its pending migrations. Knex takes a lock
 * table row, so replicas starting together migrate once.
 */
export async function migrateToLatest(knex: Knex, schema: string, migrations: MigrationSet): Promise<void> {
  await knex.raw('create schema if not exists ??', [schema]);
  await knex.migrate.latest({
    migrationSource: new InMemoryMigrationSource(migrations),
    schemaName: schema,
    tableName: 'knex_migrations',
  });
}

export async function rollbackAll(knex: Knex, schema: string, migrations: MigrationSet): Promise<void> {
  await knex.migrate.rollback(
    { migrationSource: new InMemoryMigrationSource(migrations), schemaName: schema, tableName: 'knex_migrations' },
    true,
  );
}
