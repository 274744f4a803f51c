/**
 * How long a host's attempts may run without one ending before the host counts as slow; an answer within it
 * shows the host answers.
 */
export const SLOW_AFTER_MS = 1000;
/** How long a host is remembered as slow after it was last seen stalled, and as answering after it last answered. */
export const SLOW_REMEMBERED_MS = 5 * 60_000;
/** Hosts remembered as slow, and as answering, at most; beyond it the one seen longest ago is forgotten. */
export const MAX_SLOW_HOSTS = 1000;
/** A host's last answer is noted again only when the one noted is this much older, so not per attempt. */
const ANSWER_NOTED_EVERY_MS = 1000;

/**
 * What the dispatcher remembers of subscriber hosts: which were seen stalled (slow) and which answered, each
 * with when, oldest first. Kept apart from the queues, which are forgotten when a host has nothing running or
 * waiting: a host that never answers is idle between the timeouts of its attempts, and would otherwise be
 * leased ahead again after each of them.
 */
export class HostReputation {
  private readonly slowSeenAt = new Map<string, number>();
  private readonly answeredAt = new Map<string, number>();

  isSlow(host: string): boolean {
    return this.slowSeenAt.has(host);
  }

  /** Seen answering within SLOW_AFTER_MS and not seen stalled since. */
  isAnswering(host: string): boolean {
    return this.answeredAt.has(host) && !this.slowSeenAt.has(host);
  }

  /** Whether the host answered at all (within the memory), slow since or not. */
  hasAnswered(host: string): boolean {
    return this.answeredAt.has(host);
  }

  stalled(host: string, now: number): void {
    remember(this.slowSeenAt, host, now);
  }

  /** The host answered an attempt within SLOW_AFTER_MS: it is not slow, or no longer. */
  answered(host: string, now: number): void {
    this.slowSeenAt.delete(host);
    if (now - (this.answeredAt.get(host) ?? Number.NEGATIVE_INFINITY) >= ANSWER_NOTED_EVERY_MS) remember(this.answeredAt, host, now);
  }

  /** Forgets what was noted longer than SLOW_REMEMBERED_MS ago, and the oldest beyond MAX_SLOW_HOSTS. */
  forgetOld(now: number): void {
    forgetOld(this.slowSeenAt, now);
    forgetOld(this.answeredAt, now);
  }

  slowHosts(): string[] {
    return [...this.slowSeenAt.keys()];
  }

  answeringHosts(): string[] {
    const hosts: string[] = [];
    for (const host of this.answeredAt.keys()) if (!this.slowSeenAt.has(host)) hosts.push(host);
    return hosts;
  }
}

/** Notes `host` at `now`, re-inserted so that the map stays oldest first. */
function remember(seenAt: Map<string, number>, host: string, now: number): void {
  seenAt.delete(host);
  seenAt.set(host, now);
}

function forgetOld(seenAt: Map<string, number>, now: number): void {
  for (const [host, at] of seenAt) {
    if (now - at < SLOW_REMEMBERED_MS && seenAt.size <= MAX_SLOW_HOSTS) break;
    seenAt.delete(host);
  }
}
