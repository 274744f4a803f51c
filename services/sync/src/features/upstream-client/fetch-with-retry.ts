/** One upstream GET with a timeout and bounded, backed-off retries; returns the bytes and their Content-Type. */
import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamError } from './upstream-error.js';

export interface FetchPolicy {
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** Delay before retry n is backoffMs * 2^(n-1). */
  backoffMs: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = { timeoutMs: 15_000, retries: 2, backoffMs: 250 };

export interface FetchedBody {
  /** As received: decoding (decodeText) is the caller's, so an answer known to be unchanged is never decoded. */
  bytes: Uint8Array;
  contentType: string | null;
}

/**
 * `check` reads the body; an UpstreamError it throws that is retryable (truncated body) is retried like
 * a 5xx, a non-retryable one (an error body) is final.
 */
export async function fetchWithRetry<T>(url: string, policy: FetchPolicy, check: (fetched: FetchedBody) => T): Promise<T> {
  let lastError: UpstreamError | undefined;
  for (let attempt = 0; attempt <= policy.retries; attempt += 1) {
    if (attempt > 0) await sleep(policy.backoffMs * 2 ** (attempt - 1));
    try {
      return check(await fetchOnce(url, policy.timeoutMs));
    } catch (error) {
      lastError = error instanceof UpstreamError ? error : new UpstreamError(`${url}: ${(error as Error).message}`);
      if (!lastError.retryable) throw lastError;
    }
  }
  throw lastError ?? new UpstreamError(`no attempt made for ${url}`);
}

async function fetchOnce(url: string, timeoutMs: number): Promise<FetchedBody> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (error as Error).message;
    throw new UpstreamError(`GET ${url} failed: ${reason}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new UpstreamError(`GET ${url}: body not received: ${(error as Error).message}`);
  }
  if (!response.ok) throw new UpstreamError(`GET ${url} answered HTTP ${response.status}`, response.status >= 500 || response.status === 429);
  return { bytes, contentType: response.headers.get('content-type') };
}
