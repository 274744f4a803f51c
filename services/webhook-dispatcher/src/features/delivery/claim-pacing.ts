/** After a claim that came back short (per-host caps, or nothing more due), the next waits at most this long, or for half of what it brought to end. */
export const SHORT_CLAIM_PAUSE_MS = 1000;

/**
 * When the dispatcher may claim again. A claim that filled the room it asked for may be followed at once. A
 * short one (hosts at their cap, or nothing more due) is followed once half of what it brought has ended
 * (a written batch of outcomes counting as an end), or once the pause is over. Half of what it brought, not
 * of every lease held: the leases may include a queue behind a host that never answers, and waiting for those
 * would leave every other host idle until the pause is over. The pause, whether or not anything ended: the
 * cycle runs only while attempts are in flight or waiting, and when all of them hang, nothing ends to say
 * that new work has come; a claim a second while they do is cheap, and bounds how long new work waits.
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

  /**
   * A batch of outcomes was written, which frees the leases they held. Counts as an attempt ending: a claim
   * that came back short because those leases still held a host at its cap (its slots, when it is slow, not
   * yet seen answering or shared with another dispatcher) may bring more now, and the attempts whose ends
   * were counted before that claim will not end again to say so.
   */
  outcomesWritten(): void {
    this.attemptEnded();
  }

  /** Whether a claim may be made now. */
  isDue(): boolean {
    const sinceClaim = this.clock() - this.lastClaimAt;
    return this.endedSinceClaim >= this.claimAfterEnded || sinceClaim >= this.pauseMs();
  }

  /** The pause, no longer than an interval. */
  private pauseMs(): number {
    return Math.min(SHORT_CLAIM_PAUSE_MS, this.intervalMs);
  }

  /**
   * How long the cycle may wait for an attempt to end before it looks again: until the pause is over (the
   * attempts in flight may be to a host that never answers), or an interval when a claim is due already.
   */
  waitMs(): number {
    if (this.isDue()) return this.intervalMs;
    return Math.max(1, this.pauseMs() - (this.clock() - this.lastClaimAt));
  }

  /** A claim starts: what ends from now on counts towards the next one (its pause starts in `claimed`). */
  claiming(): void {
    this.endedSinceClaim = 0;
  }

  /**
   * The claim came back with `count` of the `room` it asked for. The pause runs from here, not from its start,
   * so a claim slower than the pause (a database under load) does not make the next one due by the pause at
   * once. What ended while it ran still counts towards the next: a batch written meanwhile freed room this
   * claim could not see.
   */
  claimed(count: number, room: number): void {
    this.lastClaimAt = this.clock();
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
