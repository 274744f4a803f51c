/**
 * What tests and benches reach inside the sync for, kept out of its public index: the body hashes and feed
 * address the reader uses, how many requests it keeps in flight, the stable ids it derives, and the next
 * snapshot built at once from a whole read.
 */
export { calendarBodyHash, jsonBodyHash } from '../features/read/body-hash.js';
export { UPSTREAM_CONCURRENCY } from '../features/read/read-upstream.js';
export { groupCalendarUrl } from '../features/read/starplan-client.js';
export { uuidV5, TIMETABLE_NAMESPACE } from '../features/normalise/uuid-v5.js';
export {
  academicPeriodIdOf,
  courseIdOf,
  eventIdOf,
  instructorIdOf,
  programIdOf,
  roomIdOf,
  semesterIdOf,
} from '../features/normalise/upstream-ids.js';
export { buildNextSnapshot, type WholeRead } from './whole-read.js';
