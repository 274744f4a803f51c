/** Spec: four attempts in all; after failed attempts 1, 2 and 3 the next waits the configured delay. */
export const MAX_ATTEMPTS = 4;

export type AfterFailure = { status: 'pending'; nextRetryAt: Date } | { status: 'failed'; nextRetryAt: null };

export function afterFailedAttempt(attempts: number, failedAt: Date, retryDelaysSeconds: number[]): AfterFailure {
  if (attempts >= MAX_ATTEMPTS) return { status: 'failed', nextRetryAt: null };
  const delay = retryDelaysSeconds[Math.min(attempts, retryDelaysSeconds.length) - 1] ?? 0;
  return { status: 'pending', nextRetryAt: new Date(failedAt.getTime() + delay * 1000) };
}
