import CircuitBreaker from 'opossum';
import type { Logger } from '@timetable/observability';
import { breakerCounts } from './breaker-metrics.js';

export interface BreakerSettings {
  /** Attempts to an endpoint within the rolling window before its breaker may open. */
  minRequests: number;
  /** Share of failed attempts in the window (percent) at which it opens. */
  failurePercent: number;
  openSeconds: number;
}

export type BreakerOutcome<T> = { kind: 'ran'; result: T } | { kind: 'open'; retryAt: Date };
export type BreakerState = 'closed' | 'half_open' | 'open';

const ROLLING_WINDOW_MS = 5 * 60_000;
/** A breaker that is not open and unused this long is forgotten; a new one starts from zero, as it would have. */
export const BREAKER_IDLE_MS = 10 * 60_000;
/** Hard bound on breakers kept: beyond it the least recently used one is forgotten, whatever its state. */
export const MAX_BREAKERS = 1000;

class FailedAttempt<T> extends Error {
  constructor(readonly result: T) {
    super('attempt failed');
  }
}

type Work = () => Promise<unknown>;
type Failed = (result: unknown) => boolean;

/**
 * Every breaker's action: runs the attempt, and throws when its result says it failed, since opossum counts
 * rejections. The attempt and the test are arguments rather than a wrapper closure made per attempt. So
 * opossum's `cache` and `coalesce` must stay off: they key on the arguments, two functions whose JSON is the
 * same for every attempt, and would hand one attempt's result to the others.
 */
async function runAttempt(attempt: Work, failed: Failed): Promise<unknown> {
  const result = await attempt();
  if (failed(result)) throw new FailedAttempt(result);
  return result;
}

interface Entry {
  breaker: CircuitBreaker<[Work, Failed], unknown>;
  lastUsedAt: number;
  halfOpensAt: number;
}

export interface EndpointBreakersDeps {
  settings: BreakerSettings;
  now: () => Date;
  /** Where opening and closing are logged; none in unit tests. */
  logger?: Logger;
}

/**
 * One opossum breaker per subscriber endpoint (the webhook, keyed by its id), so a dead endpoint fails fast
 * instead of holding delivery slots for a full timeout on every attempt. Per endpoint, not per host: one
 * developer's webhook on a path that fails must not stop another developer's deliveries to the same
 * receiver host (the per-host concurrency cap is what protects a host). An open breaker does not consume an
 * attempt: the caller postpones the delivery to when the breaker half-opens. The map is kept in
 * least-recently-used order and bounded, so any number of webhooks cannot grow it without limit.
 */
export class EndpointBreakers {
  private readonly entries = new Map<string, Entry>();
  private readonly unregister: () => void;

  private readonly settings: BreakerSettings;
  private readonly now: () => Date;
  private readonly logger: Logger | undefined;

  constructor(deps: EndpointBreakersDeps) {
    this.settings = deps.settings;
    this.now = deps.now;
    this.logger = deps.logger;
    this.unregister = breakerCounts.register(() => this.states());
  }

  get size(): number {
    return this.entries.size;
  }

  /** Runs `attempt` through the breaker of `endpoint` (a webhook id), which counts it as failed when `failed` says so. */
  async run<T>(endpoint: string, attempt: () => Promise<T>, failed: (result: T) => boolean): Promise<BreakerOutcome<T>> {
    const entry = this.use(endpoint);
    try {
      return { kind: 'ran', result: (await entry.breaker.fire(attempt, failed as Failed)) as T };
    } catch (error) {
      if (error instanceof FailedAttempt) return { kind: 'ran', result: error.result as T };
      if ((error as { code?: string }).code !== 'EOPENBREAKER') throw error;
      // A half-open breaker lets one probe through; the others wait at least a second, never zero.
      const retryAt = Math.max(entry.halfOpensAt, this.now().getTime() + 1000);
      return { kind: 'open', retryAt: new Date(retryAt) };
    }
  }

  /** Every breaker's state, for the metric (counts only: which endpoints they guard is not exported). */
  states(): BreakerState[] {
    return [...this.entries.values()].map(({ breaker }) => (breaker.opened ? 'open' : breaker.halfOpen ? 'half_open' : 'closed'));
  }

  shutdown(): void {
    for (const entry of this.entries.values()) entry.breaker.shutdown();
    this.entries.clear();
    this.unregister();
  }

  private use(endpoint: string): Entry {
    const now = this.now().getTime();
    this.forget(now);
    const entry = this.entries.get(endpoint) ?? this.create(endpoint);
    // Re-inserting keeps the map in least-recently-used order.
    this.entries.delete(endpoint);
    entry.lastUsedAt = now;
    this.entries.set(endpoint, entry);
    return entry;
  }

  private forget(now: number): void {
    let excess = this.entries.size - MAX_BREAKERS + 1;
    for (const [endpoint, entry] of this.entries) {
      const idle = now - entry.lastUsedAt >= BREAKER_IDLE_MS;
      if (!idle && excess <= 0) break;
      // An open breaker is kept until it half-opens, unless the bound needs the room.
      if (entry.breaker.opened && excess <= 0) continue;
      entry.breaker.shutdown();
      this.entries.delete(endpoint);
      excess -= 1;
    }
  }

  private create(endpoint: string): Entry {
    const breaker = new CircuitBreaker(runAttempt, {
      timeout: false,
      resetTimeout: this.settings.openSeconds * 1000,
      rollingCountTimeout: ROLLING_WINDOW_MS,
      rollingCountBuckets: 10,
      volumeThreshold: this.settings.minRequests,
      // opossum opens strictly above the threshold; the rule is "at least" this share failed.
      errorThresholdPercentage: this.settings.failurePercent - 1e-9,
      // Latency percentiles and snapshots are never read here. With percentiles on, every failed attempt
      // concatenated and sorted the latencies of the whole window to decide whether to open.
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    });
    const entry: Entry = { breaker, lastUsedAt: 0, halfOpensAt: 0 };
    breaker.on('open', () => {
      entry.halfOpensAt = this.now().getTime() + this.settings.openSeconds * 1000;
      this.logger?.warn({ webhookId: endpoint, halfOpensAt: new Date(entry.halfOpensAt) }, 'circuit breaker opened for a subscriber endpoint');
    });
    return entry;
  }
}
