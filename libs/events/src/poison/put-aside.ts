import type { Logger } from '@timetable/observability';
import { eventsDeadLettered } from '../event-metrics.js';
import { failureOf } from './failure-kind.js';

/** Why a record was put aside: it could never be decoded, or its handler could never apply it. */
export type DeadLetterReason = 'undecodable' | 'unapplicable';

/** Where a record that was put aside came from, for the log line an operator searches. */
export interface PutAsideNotice {
  group: string;
  topic: string;
  key: string;
  partition: number;
  offset: string;
  error: string;
  attempts: number;
}

/** Long errors (a statement with its text) are cut: a header or a log line is not the place for them. */
const MAX_ERROR_LENGTH = 2_000;

/**
 * The error as it is stored with a record put aside: its message and what classified it. A message may quote
 * the refused value; a NUL in it is dropped, as a PostgreSQL text column would refuse it.
 */
export function describeFailure(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replaceAll('\u0000', '');
  return `${message.slice(0, MAX_ERROR_LENGTH)} [${failureOf(error).reason}]`;
}

/** Counts and logs records a handler could not apply, once they are stored aside (both modes). */
export function reportPutAside(logger: Logger, notices: PutAsideNotice[]): void {
  for (const notice of notices) {
    eventsDeadLettered.inc({ group: notice.group, topic: notice.topic, reason: 'unapplicable' });
    logger.error({ ...notice }, 'record put aside: its handler cannot apply it');
  }
}
