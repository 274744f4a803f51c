/**
 * For tests: the lease bookkeeping behind the Redis limiter, on a clock the test controls, and the parser of
 * the three HTTP date forms, which production reaches only through `isNotModified`.
 */
export { RateLeases, LEASE_MAX_MS, type LeaseGrant } from '../rate-leases.js';
export { parseRateTiers } from '../rate-limiter.js';
export { parseHttpDate } from '../http-date.js';
