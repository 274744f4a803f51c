/** After a claim that came back short (per-host caps, or nothing more due), the next waits at least this long, or for half of what it brought to end. */
export const SHORT_CLAIM_PAUSE_MS = 1000;

/**
 * When the dispatcher may claim again. A claim that filled the room it asked for may be followed at once. A
 * short one (hosts at their cap, or nothing more due) is followed once half of what it brought has ended,
 * once an attempt ended and the pause is over, or after a delivery interval. Half of what it brought, not of
 * every lease held: the leases may include a queue behind a host that never answers, and waiting for those
 * would leave every other host idle until the pause is over.
 */
export class ClaimPacing {
  private endedSinceClaim = 0;
  private lastClaimAt = Number.NEGATIVE_INFINITY;
  private claimAfterEnded = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  attemptEnded(): void {
    this.endedSinceClaim += 1;
  }

  /** Whether a claim may be made now. */
  isDue(): boolean {
    const sinceClaim = this.clock() - this.lastClaimAt;
    return this.endedSinceClaim >= this.claimAfterEnded || (this.endedSinceClaim > 0 && sinceClaim >= SHORT_CLAIM_PAUSE_MS) || sinceClaim >= this.intervalMs;
  }

  /**
   * How long the cycle may wait for an attempt to end before it looks again: until the pause is over when
   * only the pause holds a claim back (the attempts in flight may be to a host that never answers), else an
   * interval.
   */
  waitMs(): number {
    if (this.isDue() || this.endedSinceClaim === 0) return this.intervalMs;
    return Math.max(1, Math.min(this.intervalMs, SHORT_CLAIM_PAUSE_MS - (this.clock() - this.lastClaimAt)));
  }

  claiming(): void {
    this.endedSinceClaim = 0;
    this.lastClaimAt = this.clock();
  }

  claimed(count: number, room: number): void {
    this.claimAfterEnded = count < room ? Math.max(1, Math.floor(count / 2)) : 0;
  }

  /**
   * The next claim may come at once, whatever the last one brought: nothing is running or waiting, or a
   * cycle was asked for while this one ran.
   */
  allowNow(): void {
    this.claimAfterEnded = 0;
  }
}
