/** One upstream GET with a timeout and bounded, backed-off retries; returns the bytes and their Content-Type. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, interceptors, request, type Dispatcher } from 'undici';
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

let dispatcher: Dispatcher | undefined;

/**
 * Redirects are followed, as fetch did (an installation may move from http to https). An agent of our own:
 * the global dispatcher may be the one of Node's bundled undici, which this version's interceptors cannot wrap.
 */
function redirecting(): Dispatcher {
  dispatcher ??= new Agent().compose(interceptors.redirect({ maxRedirections: 5 }));
  return dispatcher;
}

/** undici's request rather than fetch: a re-sync is mostly requests, and fetch costs about twice the CPU per request. */
async function fetchOnce(url: string, timeoutMs: number): Promise<FetchedBody> {
  const signal = AbortSignal.timeout(timeoutMs);
  const failed = (error: unknown) => (signal.aborted ? `timed out after ${timeoutMs} ms` : (error as Error).message);
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, { signal, dispatcher: redirecting() });
  } catch (error) {
    throw new UpstreamError(`GET ${url} failed: ${failed(error)}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await response.body.arrayBuffer());
  } catch (error) {
    throw new UpstreamError(`GET ${url}: body not received: ${failed(error)}`);
  }
  const status = response.statusCode;
  if (status < 200 || status > 299) throw new UpstreamError(`GET ${url} answered HTTP ${status}`, status >= 500 || status === 429);
  const contentType = response.headers['content-type'];
  return { bytes, contentType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? null };
}
