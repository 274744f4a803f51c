import type { Logger } from '@timetable/observability';
import type { IncomingEvent } from '../event-bus.js';

/** A record of the in-process bus that its handler could not apply, with why and how often it was tried. */
export interface PutAsideRecord {
  group: string;
  event: IncomingEvent;
  error: string;
  attempts: number;
}

/** Where the embedded mode keeps what it put aside (the outbox store's dead_letters table). */
export interface DeadLetterStore {
  putAside(records: PutAsideRecord[]): Promise<void>;
}

/**
 * For a bus composed without a store (tests, tools): the whole record goes to the error log, so an operator
 * still holds what was put aside.
 */
export class LoggedDeadLetters implements DeadLetterStore {
  constructor(private readonly logger: Logger) {}

  putAside(records: PutAsideRecord[]): Promise<void> {
    for (const { group, event, error, attempts } of records) {
      this.logger.error({ group, topic: event.topic, key: event.key, value: event.value, headers: event.headers, error, attempts }, 'record put aside without a dead-letter store');
    }
    return Promise.resolve();
  }
}
