/**
 * `npm run bench:webhook-store`: the database side of webhook dispatch alone. A backlog of due deliveries
 * to 8 webhooks is claimed and recorded by the dispatcher's own store (the claim statement, the batched
 * record statement), one statement at a time and without any HTTP, until nothing is due: up to 768 leases
 * held, and a claim whenever half of them have ended, as the dispatcher claims. It reports the
 * PostgreSQL CPU per delivery (its backends, read from /proc), the time per delivery in claims and in
 * records, and how many row updates of `deliveries` were HOT. bench:webhooks runs the whole dispatcher,
 * where both cores are busy and its numbers vary by a third from run to run; this isolates what a change
 * to the statements or the schema does. Contacts only 127.0.0.1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { createKnex, migrateToLatest, type Knex } from '@timetable/db';
import { webhookMigrations, WEBHOOKS_SCHEMA } from '@timetable/webhook-dispatcher';
import { DeliveryStore, SecretCipher, type AttemptRecord, type ClaimedDelivery } from '@timetable/webhook-dispatcher/testing';
import { procCpuSeconds } from './support/proc-cpu.js';

const PER_WEBHOOK = Number(process.env.BENCH_DELIVERIES ?? 2_000);
const WEBHOOKS = 8;
/** The dispatcher's defaults: 24 × its concurrency of 32 held, 32 × the host limit of 4 ahead per host. */
const CLAIM_LIMIT = 768;
const HOST_LIMIT = 4;
const HOST_AHEAD = 128;
/** Outcomes per record statement: what a batch holds at about 3,000 deliveries/s (20 ms of outcomes). */
const RECORD_BATCH = 64;
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** CPU seconds used so far by the PostgreSQL backends serving `database` (null if they are not on this machine). */
async function postgresCpuSeconds(database: string): Promise<number | null> {
  let total = 0;
  for (const { pid } of await admin<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database])) {
    const seconds = await procCpuSeconds(`/proc/${pid}/stat`);
    if (seconds === null) return null;
    total += seconds;
  }
  return total;
}

async function seed(knex: Knex): Promise<void> {
  const at = new Date();
  const webhooks = Array.from({ length: WEBHOOKS }, (_, i) => ({
    id: randomUUID(), developer_id: randomUUID(), url: `http://127.0.0.1:${9000 + i}/hook`, target_host: `127.0.0.1:${9000 + i}`,
    filter_scope: 'all', event_types: ['*'], is_active: true, created_at: at, updated_at: at,
  }));
  await knex('webhooks').insert(webhooks);
  for (const webhook of webhooks) {
    const rows = Array.from({ length: PER_WEBHOOK }, (_, i) => ({
      id: randomUUID(), webhook_id: webhook.id, message_id: `msg_${i}`, event_type: 'course.updated', status: 'pending',
      next_retry_at: at, created_at: at, origin: 'test',
    }));
    for (let start = 0; start < rows.length; start += 1000) await knex('deliveries').insert(rows.slice(start, start + 1000));
  }
  await knex.raw('vacuum analyze deliveries');
}

async function hotUpdates(databaseUrl: string): Promise<{ all: number; hot: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ all: number; hot: number }>(
      "select n_tup_upd::int as all, n_tup_hot_upd::int as hot from pg_stat_user_tables where schemaname = $1 and relname = 'deliveries'",
      [WEBHOOKS_SCHEMA],
    );
    return rows[0] ?? { all: 0, hot: 0 };
  } finally {
    await client.end();
  }
}

function delivered(payload: string): AttemptRecord {
  const at = new Date();
  return {
    status: 'delivered', attempts: 1, lastAttemptAt: at, nextRetryAt: null, responseCode: 204, responseBody: null,
    errorMessage: null, deliveredAt: at, payload,
  };
}

async function main(): Promise<void> {
  const database = `bench_webhook_store_${Date.now()}`;
  await admin(`create database ${database}`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const knex = createKnex({ connectionString: url.toString(), schema: WEBHOOKS_SCHEMA, poolMax: 2 });
  try {
    await migrateToLatest(knex, WEBHOOKS_SCHEMA, webhookMigrations);
    await seed(knex);
    const store = new DeliveryStore({ knex, cipher: new SecretCipher(randomBytes(32)) });
    // About the size of a change's body: the record statement writes it.
    const payload = JSON.stringify({ type: 'course.updated', timestamp: new Date().toISOString(), data: { name: 'x'.repeat(400) } });
    const dispatcher = randomUUID();
    const cpuBefore = await postgresCpuSeconds(database);
    let count = 0;
    let claimMs = 0;
    let recordMs = 0;
    const started = performance.now();
    // As the dispatcher does: claim again once half of what it holds has ended, so every claim after the
    // first runs while hundreds of leases are held, which is the load it reads.
    const held: ClaimedDelivery[] = [];
    for (;;) {
      const now = new Date();
      const claimStarted = performance.now();
      const claimed = await store.claimDue({
        now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: CLAIM_LIMIT - held.length,
        hostLimit: HOST_LIMIT, claimedBy: dispatcher, hostAheadLimit: HOST_AHEAD,
      });
      claimMs += performance.now() - claimStarted;
      if (claimed.length === 0 && held.length === 0) break;
      count += claimed.length;
      held.push(...claimed);
      const keep = claimed.length === 0 ? 0 : CLAIM_LIMIT / 2;
      while (held.length > keep) {
        const recordStarted = performance.now();
        await store.recordAttempts(held.splice(0, RECORD_BATCH).map((lease) => ({ lease, record: delivered(payload) })));
        recordMs += performance.now() - recordStarted;
      }
    }
    const elapsedMs = performance.now() - started;
    const cpuAfter = await postgresCpuSeconds(database);
    // Backends report their statistics when they end: close them before reading.
    await knex.destroy();
    const updates = await hotUpdates(url.toString());
    const perDelivery = (ms: number) => `${((ms * 1000) / count).toFixed(0)} µs`;
    const report = [
      `webhook store: ${count} deliveries of ${WEBHOOKS} webhooks, up to ${CLAIM_LIMIT} held, claimed again when half have ended, recorded ${RECORD_BATCH} at a time`,
      `per delivery:  ${perDelivery(elapsedMs)} in all, ${perDelivery(claimMs)} in claims, ${perDelivery(recordMs)} in records`,
      `PostgreSQL:    ${cpuBefore === null || cpuAfter === null ? 'not on this machine' : `${(((cpuAfter - cpuBefore) * 1e6) / count).toFixed(0)} µs CPU a delivery`}`,
      `row updates:   ${updates.all} of deliveries, ${updates.hot} of them HOT (a claim's lease and a record each update a row)`,
    ];
    process.stdout.write(`${report.join('\n')}\n`);
  } finally {
    // Already destroyed after the measurement; a second call does nothing.
    await knex.destroy();
    await admin(`drop database if exists ${database} with (force)`);
  }
}

await main();
