import type { Knex } from '@timetable/db';
import type { OutgoingEvent } from '../event-bus.js';

const INSERT_CHUNK = 1000;

/** Appends events to the outbox inside the caller's transaction: they leave only if the state commits. */
export async function appendToOutbox(trx: Knex.Transaction, events: OutgoingEvent[]): Promise<void> {
  for (let index = 0; index < events.length; index += INSERT_CHUNK) {
    const rows = events.slice(index, index + INSERT_CHUNK).map((event) => ({
      topic: event.topic,
      message_key: event.key,
      value: event.value === null ? null : JSON.stringify(event.value),
      headers: JSON.stringify(event.headers ?? {}),
    }));
    await trx('outbox').insert(rows);
  }
}
