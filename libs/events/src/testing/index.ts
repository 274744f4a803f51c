/**
 * What tests of the consumers need from the event library: the two modes' buses and the retry rule; and what
 * tests check the library by: the name of a topic's dead-letter topic and the error a refused publish throws.
 */
import { embeddedTestBed } from './embedded-test-bed.js';
import { kafkaTestBed } from './kafka-test-bed.js';
import type { ConsumerTestBed, TestBedSettings } from './test-bed.js';

export type { BusMode, ConsumerTestBed, PutAsideView, TestBedSettings } from './test-bed.js';
export { RECORD_ATTEMPTS, applyIsolating } from '../poison/apply-isolating.js';
export { failureOf } from '../poison/failure-kind.js';
export { outboxStoreMigrations } from './embedded-test-bed.js';
export { deadLetterTopicOf } from '../kafka/dead-letters.js';
export { RefusedEventError } from '../kafka/schema-codec.js';

export function openTestBed(settings: TestBedSettings): Promise<ConsumerTestBed> {
  return settings.mode === 'kafka' ? kafkaTestBed(settings) : embeddedTestBed(settings);
}
