export { createKnex, isDatabaseReachable, openKeptConnections, type KnexSettings } from './create-knex.js';
export { endSession, refusedByServer, withPooledConnection, type PooledConnection, type TimedStatement } from './pooled-connection.js';
export { migrateToLatest, type Migration, type MigrationSet } from './migrate.js';
export { startEmbeddedPostgres, type EmbeddedPostgresSettings, type RunningEmbeddedPostgres } from './embedded-postgres.js';
export type { Knex } from 'knex';
