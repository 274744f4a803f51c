import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';

/** Where the stack's backing services are (scripts/infra-up.sh's defaults unless told otherwise). */
export interface StackInfrastructure {
  /** A server URL with a database to connect to for CREATE DATABASE, e.g. `.../postgres`. */
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
}

/** `timetable_<namespace>_<service>`; a namespace is lower-case letters, digits and underscores. */
export function databaseNameOf(namespace: string, service: string): string {
  return `timetable_${namespace}_${service.replace(/-/g, '_')}`;
}

export function databaseUrlOf(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** One database per service, as in production; kept when it already exists (a stack restarted on its data). */
export async function createDatabases(serverUrl: string, names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname = any($1)', [names]);
    const existing = new Set(rows.map((row) => row.datname));
    for (const name of names.filter((candidate) => !existing.has(candidate))) {
      await client.query(`create database "${name}"`);
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabases(serverUrl: string, names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const name of names) await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** Removes a throw-away stack's topics, so test runs do not pile up partitions on the shared broker. */
export async function deleteTopics(brokers: string[], prefix: string): Promise<void> {
  const admin = new Kafka({ clientId: 'stack-cleanup', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
  } finally {
    await admin.disconnect();
  }
}

/** Rows still waiting in sync's outbox (its database, schema `sync`). */
export async function outboxBacklog(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>('select count(*) as count from sync.outbox');
    return Number(rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

/** The shared infrastructure named by DATABASE_URL, REDIS_URL, KAFKA_BROKERS and SCHEMA_REGISTRY_URL; unset ones keep the stack's local defaults. */
export function infrastructureFromEnv(env: Record<string, string | undefined> = process.env): Partial<StackInfrastructure> {
  return {
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(env.KAFKA_BROKERS ? { kafkaBrokers: env.KAFKA_BROKERS.split(',') } : {}),
    ...(env.SCHEMA_REGISTRY_URL ? { schemaRegistryUrl: env.SCHEMA_REGISTRY_URL } : {}),
  };
}
