/** For tests: the lease bookkeeping behind the Redis limiter, on a clock the test controls. */
export { RateLeases, LEASE_MAX_MS, type LeaseGrant } from '../rate-leases.js';
export { parseRateTiers } from '../rate-limiter.js';
