import { describe, expect, it } from 'vitest';
import { LEASE_MAX_MS, parseRateTiers, RateLeases, type LeaseGrant } from '@timetable/cache/testing';

/** A lease store on a clock the test moves. */
function leasesAt(start = 1_000_000) {
  const clock = { now: start };
  return { clock, leases: new RateLeases(() => clock.now) };
}

/** What a shared store holding `count` before the grant would answer for one tier of `windowMs`. */
function grant(granted: number, countBefore: number, ttlMs: number): LeaseGrant {
  return { granted, counts: [countBefore + granted], ttlsMs: [ttlMs] };
}

describe('rate leases', () => {
  it('give a client that asks now and then one-token leases: every request is counted by the shared store', () => {
    const { clock, leases } = leasesAt();
    const tiers = parseRateTiers('1000/1m');
    for (let request = 0; request < 5; request += 1) {
      expect(leases.spend('client', tiers)).toBeUndefined();
      expect(leases.sizeOfNext('client', tiers)).toBe(1);
      leases.record('client', tiers, grant(1, request, 60_000));
      clock.now += 500;
    }
  });

  it('size a busy client\'s lease to about 100 ms of its traffic, at most a quarter of the smallest tier', () => {
    const { clock, leases } = leasesAt();
    const tiers = parseRateTiers('100/1s,100000/1h');
    leases.record('busy', tiers, grant(1, 0, 1_000));
    clock.now += 1;
    // One token used within a millisecond: 100 ms of that would be 100 tokens, capped at 100 / 4.
    expect(leases.sizeOfNext('busy', tiers)).toBe(25);
    const slower = leasesAt().leases;
    slower.record('steady', tiers, { granted: 10, counts: [10, 10], ttlsMs: [1_000, 3_600_000] });
    for (let request = 1; request < 10; request += 1) expect(slower.spend('steady', tiers)?.allowed).toBe(true);
    expect(slower.spend('steady', tiers)).toBeUndefined();
  });

  it('spend a lease\'s tokens without the store, counting unspent tokens as the client\'s remaining budget', () => {
    const { leases } = leasesAt();
    const tiers = parseRateTiers('20/1m');
    expect(leases.record('client', tiers, grant(5, 10, 30_000))).toMatchObject({ allowed: true, limit: 20, remaining: 9 });
    expect(leases.spend('client', tiers)).toMatchObject({ allowed: true, remaining: 8, resetSeconds: 30 });
    expect(leases.spend('client', tiers)).toMatchObject({ remaining: 7 });
    expect(leases.spend('client', tiers)).toMatchObject({ remaining: 6 });
    expect(leases.spend('client', tiers)).toMatchObject({ remaining: 5 });
    expect(leases.spend('client', tiers)).toBeUndefined();
  });

  it('void a lease at its earliest tier reset, or a second after the grant, whichever comes first', () => {
    const { clock, leases } = leasesAt();
    const tiers = parseRateTiers('1000/1m');
    leases.record('long', tiers, grant(50, 0, 60_000));
    leases.record('resetting', tiers, grant(50, 0, 200));
    clock.now += 200;
    expect(leases.spend('resetting', tiers)).toBeUndefined();
    expect(leases.spend('long', tiers)?.allowed).toBe(true);
    clock.now += LEASE_MAX_MS - 200;
    expect(leases.spend('long', tiers)).toBeUndefined();
  });

  it('repeat a refusal without the store while its lease lasts, with the time until the full tier resets', () => {
    const { clock, leases } = leasesAt();
    const tiers = parseRateTiers('3/1m');
    const refused = leases.record('flood', tiers, { granted: 0, counts: [3], ttlsMs: [20_000] });
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 20 });
    clock.now += 500;
    expect(leases.spend('flood', tiers)).toMatchObject({ allowed: false, retryAfterSeconds: 20 });
    clock.now += 500;
    expect(leases.spend('flood', tiers)).toBeUndefined();
  });

  it('hold a bounded number of leases, forgetting expired ones first', () => {
    const clock = { now: 0 };
    const leases = new RateLeases(() => clock.now, 100);
    const tiers = parseRateTiers('1000/1m');
    for (let client = 0; client < 100; client += 1) leases.record(`old-${client}`, tiers, grant(5, 0, 60_000));
    clock.now += LEASE_MAX_MS;
    for (let client = 0; client < 1_000; client += 1) leases.record(`new-${client}`, tiers, grant(5, 0, 60_000));
    expect(leases.size).toBe(100);
    expect(leases.spend('new-999', tiers)?.allowed).toBe(true);
  });
});
