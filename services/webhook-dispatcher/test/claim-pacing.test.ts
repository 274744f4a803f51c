import { describe, expect, it } from 'vitest';
import { ClaimPacing, SHORT_CLAIM_PAUSE_MS } from '../src/features/delivery/claim-pacing.js';

const INTERVAL_MS = 30_000;

function pacingAt(start = 10_000) {
  let now = start;
  const pacing = new ClaimPacing(INTERVAL_MS, () => now);
  return { pacing, advance: (ms: number) => (now += ms) };
}

function endAttempts(pacing: ClaimPacing, count: number): void {
  for (let index = 0; index < count; index += 1) pacing.attemptEnded();
}

describe('claim pacing', () => {
  it('lets the first claim and the claim after a full one come at once', () => {
    const { pacing } = pacingAt();
    expect(pacing.isDue()).toBe(true);
    pacing.claiming();
    pacing.claimed(512, 512);
    expect(pacing.isDue()).toBe(true);
  });

  it('after a short claim, claims again once half of what it brought has ended, however many leases are held', () => {
    // 176 live deliveries claimed while a host that never answers holds its slots and a queue of leases: the
    // live ones ending is what makes room, so waiting for half of all leases held would stall the live hosts.
    const { pacing } = pacingAt();
    pacing.claiming();
    pacing.claimed(176, 192);
    endAttempts(pacing, 87);
    expect(pacing.isDue()).toBe(false);
    pacing.attemptEnded();
    expect(pacing.isDue()).toBe(true);
  });

  it('after a short claim, claims again when the pause is over, whether or not an attempt has ended', () => {
    // The attempts in flight may all hang, and new work may have come meanwhile.
    const { pacing, advance } = pacingAt();
    pacing.claiming();
    pacing.claimed(100, 400);
    advance(SHORT_CLAIM_PAUSE_MS - 1);
    expect(pacing.isDue()).toBe(false);
    advance(1);
    expect(pacing.isDue()).toBe(true);
  });

  it('measures the pause from when a short claim came back, so a slow claim is not followed by another at once', () => {
    const { pacing, advance } = pacingAt();
    pacing.claiming();
    advance(SHORT_CLAIM_PAUSE_MS + 500);
    pacing.claimed(100, 400);
    expect(pacing.isDue()).toBe(false);
    expect(pacing.waitMs()).toBe(SHORT_CLAIM_PAUSE_MS);
    advance(SHORT_CLAIM_PAUSE_MS);
    expect(pacing.isDue()).toBe(true);
  });

  it('waits until the pause is over, not for the next attempt to end, when only the pause holds a claim back', () => {
    const { pacing, advance } = pacingAt();
    pacing.claiming();
    pacing.claimed(100, 400);
    pacing.attemptEnded();
    advance(300);
    expect(pacing.waitMs()).toBe(SHORT_CLAIM_PAUSE_MS - 300);
  });

  it('after a claim that brought nothing, waits for an attempt to end or for the pause', () => {
    const { pacing, advance } = pacingAt();
    pacing.claiming();
    pacing.claimed(0, 512);
    expect(pacing.isDue()).toBe(false);
    expect(pacing.waitMs()).toBe(SHORT_CLAIM_PAUSE_MS);
    advance(SHORT_CLAIM_PAUSE_MS);
    expect(pacing.isDue()).toBe(true);
    expect(pacing.waitMs()).toBe(INTERVAL_MS);
  });

  it('after a claim that brought nothing, claims again once outcomes are written, as when an attempt ends', () => {
    // The claim found a host at its cap, held by outcomes not yet written; their attempts had already ended.
    const { pacing } = pacingAt();
    pacing.claiming();
    pacing.claimed(0, 512);
    expect(pacing.isDue()).toBe(false);
    pacing.outcomesWritten();
    expect(pacing.isDue()).toBe(true);
  });

  it('keeps the pause no longer than a delivery interval shorter than it', () => {
    let now = 10_000;
    const pacing = new ClaimPacing(500, () => now);
    pacing.claiming();
    pacing.claimed(10, 400);
    now += 400;
    expect(pacing.isDue()).toBe(false);
    expect(pacing.waitMs()).toBe(100);
    now += 100;
    expect(pacing.isDue()).toBe(true);
  });

  it('claims at once again when the dispatcher has nothing running or waiting', () => {
    const { pacing } = pacingAt();
    pacing.claiming();
    pacing.claimed(10, 400);
    expect(pacing.isDue()).toBe(false);
    pacing.allowNow();
    expect(pacing.isDue()).toBe(true);
  });
});
