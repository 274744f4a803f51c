/** What tests of the consumers need from the event library. */
export { RECORD_ATTEMPTS, applyIsolating } from '../poison/apply-isolating.js';
export { failureOf } from '../poison/failure-kind.js';
