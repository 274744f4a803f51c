/** What a batch step came to: its result, or the batch was given back (shutdown, rebalance) unfinished. */
export type StepOutcome<T> = { done: true; value: T } | { done: false };

export interface BatchRetrySettings {
  /** How long one step may keep failing before the consumer gives up for good. */
  budgetMs: number;
  /** False once the consumer stops or the batch's partitions moved to another member. */
  stillOwned(): boolean;
  /** Keeps the group membership alive while waiting; throws when the group rebalances. */
  heartbeat(): Promise<void>;
  onRetry(error: unknown, attempt: number, delayMs: number): void;
}

/** Thrown when a step failed for longer than the retry budget: the process should end and be restarted. */
export class RetryBudgetExhaustedError extends Error {
  override readonly name = 'RetryBudgetExhaustedError';

  constructor(
    readonly step: string,
    override readonly cause: unknown,
  ) {
    super(`${step} kept failing past the retry budget: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

const HEARTBEAT_EVERY_MS = 3_000;
const MAX_DELAY_MS = 15_000;

/**
 * Runs one step of a batch (decode, dead-letter, handle) until it succeeds. A failure here is an outage of
 * something the step needs (the registry, the service's database), never a reason to skip the message: it
 * waits with capped exponential backoff, heartbeating so the group keeps the partition, and gives up only
 * when the budget is spent, so the process is restarted and resumes from the committed offset.
 */
export async function retryStep<T>(step: string, work: () => Promise<T>, settings: BatchRetrySettings): Promise<StepOutcome<T>> {
  const startedAt = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    if (!settings.stillOwned()) return { done: false };
    try {
      return { done: true, value: await work() };
    } catch (error) {
      if (Date.now() - startedAt >= settings.budgetMs) throw new RetryBudgetExhaustedError(step, error);
      const delayMs = Math.min(MAX_DELAY_MS, 250 * 2 ** Math.min(attempt, 10));
      settings.onRetry(error, attempt, delayMs);
      if (!(await waitOwned(delayMs, settings))) return { done: false };
    }
  }
}

/** Sleeps in heartbeat-sized slices; false as soon as the batch is no longer ours. */
async function waitOwned(delayMs: number, settings: BatchRetrySettings): Promise<boolean> {
  const until = Date.now() + delayMs;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(HEARTBEAT_EVERY_MS, until - Date.now())));
    if (!settings.stillOwned()) return false;
    try {
      await settings.heartbeat();
    } catch {
      return false;
    }
  }
  return true;
}
