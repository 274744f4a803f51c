import { createKnex, migrateToLatest, type MigrationSet } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import { InProcessBus } from '../in-process-bus.js';
import { createDeadLetterTable, DeadLetterTable } from '../outbox/dead-letter-table.js';
import { createOutboxTable } from '../outbox/outbox-migration.js';
import { OutboxRelay } from '../outbox/outbox-relay.js';
import { appendToOutbox } from '../outbox/outbox-writer.js';
import { counterValue, type ConsumerTestBed, type PutAsideView } from './test-bed.js';

interface DeadLetterRow {
  group_id: string;
  message_key: string;
  value: unknown;
  headers: Record<string, string>;
  error: string;
  attempts: number;
}

/** The outbox store's tables, as the sync service migrates them. */
export const outboxStoreMigrations: MigrationSet = {
  '20250101000100_create_outbox': createOutboxTable,
  '20261208000000_create_dead_letters': createDeadLetterTable,
};

const SCHEMA = 'test_bed_outbox';

/** The embedded mode: the in-process bus fed by a running outbox relay, dead letters in the outbox store. */
export async function embeddedTestBed(settings: { connectionString: string; logger: Logger }): Promise<ConsumerTestBed> {
  const { logger } = settings;
  const knex = createKnex({ connectionString: settings.connectionString, schema: SCHEMA, poolMax: 3, logger });
  await migrateToLatest(knex, SCHEMA, outboxStoreMigrations);
  const bus = new InProcessBus(logger, { deadLetters: new DeadLetterTable(knex) });
  const relay = new OutboxRelay({ knex, schema: SCHEMA, bus, logger, idleMs: 200 });
  void relay.start();
  return {
    mode: 'embedded',
    bus,
    async publish(events) {
      await knex.transaction((trx) => appendToOutbox(trx, events));
      relay.wake();
    },
    backlog: () => relay.backlog(),
    async putAside(topic) {
      const rows: DeadLetterRow[] = await knex('dead_letters').select('group_id', 'message_key', 'value', 'headers', 'error', 'attempts').where({ topic }).orderBy('id');
      return rows.map((row): PutAsideView => ({ group: row.group_id, key: row.message_key, value: row.value, headers: row.headers, error: row.error, attempts: row.attempts }));
    },
    startGroupAtEnd: () => Promise.resolve(),
    countedPutAside: (group, topic) => counterValue('events_dead_lettered_total', { group, topic, reason: 'unapplicable' }),
    countedRetries: (group, topic) => counterValue('events_consumer_retries_total', { group, topic }),
    async close() {
      await relay.stop();
      await bus.disconnect();
      await knex.destroy();
    },
  };
}
