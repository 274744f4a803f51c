import { randomUUID } from 'node:crypto';
import type { Knex } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import { InProcessBus } from '../in-process-bus.js';
import { DeadLetterTable } from '../outbox/dead-letter-table.js';
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

/** The embedded mode: the in-process bus fed by a running outbox relay, dead letters in the outbox store. */
export function embeddedTestBed(settings: { outboxStore: Knex; logger: Logger }): ConsumerTestBed {
  const { outboxStore: knex, logger } = settings;
  const bus = new InProcessBus(logger, { deadLetters: new DeadLetterTable(knex) });
  const relay = new OutboxRelay({ knex, schema: `test-bed-${randomUUID()}`, bus, logger, idleMs: 200 });
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
    },
  };
}
