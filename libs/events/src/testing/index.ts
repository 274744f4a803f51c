/** What tests of the consumers need from the event library: the two modes' buses and the retry rule. */
import type { MigrationSet } from '@timetable/db';
import { createDeadLetterTable } from '../outbox/dead-letter-table.js';
import { createOutboxTable } from '../outbox/outbox-migration.js';
import { embeddedTestBed } from './embedded-test-bed.js';
import { kafkaTestBed } from './kafka-test-bed.js';
import type { ConsumerTestBed, TestBedSettings } from './test-bed.js';

export type { BusMode, ConsumerTestBed, PutAsideView, TestBedSettings } from './test-bed.js';
export { RECORD_ATTEMPTS, applyIsolating } from '../poison/apply-isolating.js';
export { failureOf } from '../poison/failure-kind.js';

/** The outbox store's tables, as the sync service migrates them. */
export const outboxStoreMigrations: MigrationSet = {
  '20250101000100_create_outbox': createOutboxTable,
  '20261208000000_create_dead_letters': createDeadLetterTable,
};

export function openTestBed(settings: TestBedSettings): Promise<ConsumerTestBed> {
  return settings.mode === 'kafka' ? kafkaTestBed(settings) : Promise.resolve(embeddedTestBed(settings));
}
