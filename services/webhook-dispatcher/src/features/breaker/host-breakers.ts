import CircuitBreaker from 'opossum';
import { gauge } from '@timetable/observability';

export interface BreakerSettings {
  /** Attempts to a host within the rolling window before its breaker may open. */
  minRequests: number;
  /** Share of failed attempts in the window (percent) at which it opens. */
  failurePercent: number;
  openSeconds: number;
}

export type BreakerOutcome<T> = { kind: 'ran'; result: T } | { kind: 'open'; retryAt: Date };

const ROLLING_WINDOW_MS = 5 * 60_000;
const STATE_VALUES = { closed: 0, halfOpen: 1, open: 2 } as const;

const breakerState = gauge({
  name: 'webhook_breaker_state',
  help: 'Circuit breaker state per subscriber host: 0 closed, 1 half-open, 2 open',
  labelNames: ['host'],
});

class FailedAttempt<T> extends Error {
  constructor(readonly result: T) {
    super('attempt failed');
  }
}

type Work = () => Promise<unknown>;

/**
 * One opossum breaker per subscriber host (host:port), so a dead endpoint fails fast instead of
 * holding delivery slots for a full timeout on every attempt. An open breaker does not consume an
 * attempt: the caller postpones the delivery to when the breaker half-opens.
 */
export class HostBreakers {
  private readonly breakers = new Map<string, CircuitBreaker<[Work], unknown>>();
  private readonly halfOpensAt = new Map<string, number>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: () => Date,
  ) {}

  async run<T>(host: string, attempt: () => Promise<T>, failed: (result: T) => boolean): Promise<BreakerOutcome<T>> {
    const work = async () => {
      const result = await attempt();
      if (failed(result)) throw new FailedAttempt(result);
      return result;
    };
    try {
      return { kind: 'ran', result: (await this.breakerFor(host).fire(work)) as T };
    } catch (error) {
      if (error instanceof FailedAttempt) return { kind: 'ran', result: error.result as T };
      if ((error as { code?: string }).code !== 'EOPENBREAKER') throw error;
      // A half-open breaker lets one probe through; the others wait at least a second, never zero.
      const retryAt = Math.max(this.halfOpensAt.get(host) ?? 0, this.now().getTime() + 1000);
      return { kind: 'open', retryAt: new Date(retryAt) };
    }
  }

  shutdown(): void {
    for (const breaker of this.breakers.values()) breaker.shutdown();
    this.breakers.clear();
  }

  private breakerFor(host: string): CircuitBreaker<[Work], unknown> {
    const existing = this.breakers.get(host);
    if (existing) return existing;
    const breaker = new CircuitBreaker((work: Work) => work(), {
      timeout: false,
      resetTimeout: this.settings.openSeconds * 1000,
      rollingCountTimeout: ROLLING_WINDOW_MS,
      rollingCountBuckets: 10,
      volumeThreshold: this.settings.minRequests,
      // opossum opens strictly above the threshold; the design says "at least" this share failed.
      errorThresholdPercentage: this.settings.failurePercent - 1e-9,
    });
    breaker.on('open', () => {
      this.halfOpensAt.set(host, this.now().getTime() + this.settings.openSeconds * 1000);
      breakerState.set({ host }, STATE_VALUES.open);
    });
    breaker.on('halfOpen', () => breakerState.set({ host }, STATE_VALUES.halfOpen));
    breaker.on('close', () => breakerState.set({ host }, STATE_VALUES.closed));
    breakerState.set({ host }, STATE_VALUES.closed);
    this.breakers.set(host, breaker);
    return breaker;
  }
}
