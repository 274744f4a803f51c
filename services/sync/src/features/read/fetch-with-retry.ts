/** One upstream GET with a timeout and bounded, backed-off retries; returns the bytes and their Content-Type. */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { upstreamRecordsRejected } from '../validate/metrics.js';
import { AnswerTooLargeError, HttpGetError, httpGet, type HttpAnswer } from './http-get.js';
import { UpstreamError } from './upstream-error.js';

export interface FetchPolicy {
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** Delay before retry n is backoffMs * 2^(n-1). */
  backoffMs: number;
  /** The largest answer read (UPSTREAM_MAX_BODY_BYTES); a larger one fails its request without a retry. */
  maxBodyBytes: number;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 2 ** 20;

export const DEFAULT_FETCH_POLICY: FetchPolicy = { timeoutMs: 15_000, retries: 2, backoffMs: 250, maxBodyBytes: DEFAULT_MAX_BODY_BYTES };

/** What an answer said about its version, for a conditional request next time (both optional: StarPlan sends neither). */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

export interface FetchedBody {
  /** As received: decoding (decodeText) is the caller's, so an answer known to be unchanged is never decoded. */
  bytes: Uint8Array;
  contentType: string | null;
  validators: Validators;
  /** A 304 to a conditional request: no body, the version the validators name is still current. */
  notModified: boolean;
}

/** An answer received earlier in the run, not yet checked, and the attempt (0 for the first) that received it. */
export interface EarlierAnswer {
  fetched: FetchedBody;
  attempt: number;
}

/**
 * `check` reads the body; an UpstreamError it throws that is retryable (truncated body) is retried like
 * a 5xx, a non-retryable one (an error body) is final. With `earlier`, the answer a request of this run already
 * received is checked first, as the attempt it was, and only a retry asks again: the request is made no more
 * often than had it been checked when it arrived.
 */
export async function fetchWithRetry<T>(
  url: string,
  policy: FetchPolicy,
  check: (fetched: FetchedBody, attempt: number) => T,
  { conditional, earlier }: { conditional?: Validators | undefined; earlier?: EarlierAnswer | undefined } = {},
): Promise<T> {
  let lastError: UpstreamError | undefined;
  for (let attempt = earlier?.attempt ?? 0; attempt <= policy.retries; attempt += 1) {
    const received = attempt === earlier?.attempt ? earlier.fetched : undefined;
    if (attempt > 0 && received === undefined) await sleep(policy.backoffMs * 2 ** (attempt - 1));
    try {
      return check(received ?? (await fetchOnce(url, policy, conditional)), attempt);
    } catch (error) {
      lastError = error instanceof UpstreamError ? error : new UpstreamError(`${url}: ${(error as Error).message}`);
      if (!lastError.retryable) throw lastError;
    }
  }
  throw lastError ?? new UpstreamError(`no attempt made for ${url}`);
}

/** An agent of our own: the global dispatcher may be the one of Node's bundled undici, a version apart from ours. */
let agent: Agent | undefined;

/**
 * Redirects are followed, as fetch does (an installation may move from http to https), up to this many hops;
 * the answer after the last is taken as it is, so a loop ends as an HTTP error.
 */
const MAX_REDIRECTIONS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** undici's dispatch rather than fetch or request: a re-sync is mostly requests, and each of those costs more CPU per request. */
async function fetchOnce(url: string, policy: FetchPolicy, conditional: Validators | undefined): Promise<FetchedBody> {
  const headers: Record<string, string> = {};
  if (conditional?.etag) headers['if-none-match'] = conditional.etag;
  if (conditional?.lastModified) headers['if-modified-since'] = conditional.lastModified;
  let answer: HttpAnswer;
  try {
    answer = await getFollowingRedirects(new URL(url), headers, policy);
  } catch (error) {
    const message = (error as Error).message;
    if (error instanceof AnswerTooLargeError) {
      upstreamRecordsRejected.inc({ kind: 'answer', reason: 'too_large' });
      throw new UpstreamError(`GET ${url}: ${message}`, false);
    }
    if (error instanceof HttpGetError && error.headersReceived) throw new UpstreamError(`GET ${url}: body not received: ${message}`);
    throw new UpstreamError(`GET ${url} failed: ${message}`);
  }
  const { statusCode: status, bytes } = answer;
  const validators = validatorsOf(answer.headers);
  // A 304 is an answer only to a request that was conditional; otherwise it is an error like any other non-2xx.
  if (status === 304 && conditional && Object.keys(headers).length > 0) {
    return { bytes, contentType: null, validators: { ...conditional, ...validators }, notModified: true };
  }
  if (status < 200 || status > 299) throw new UpstreamError(`GET ${url} answered HTTP ${status}`, status >= 500 || status === 429);
  return { bytes, contentType: header(answer.headers, 'content-type') ?? null, validators, notModified: false };
}

/**
 * Follows redirects itself rather than through undici's redirect interceptor, which wraps every request in a
 * handler of its own although StarPlan answers nearly every one directly. `timeoutMs` bounds all hops
 * together; a 300 (Multiple Choices) is not followed, as it names no single place to go.
 */
async function getFollowingRedirects(url: URL, headers: Record<string, string>, { timeoutMs, maxBodyBytes }: FetchPolicy): Promise<HttpAnswer> {
  agent ??= new Agent();
  const deadline = performance.now() + timeoutMs;
  const timedOut = `timed out after ${timeoutMs} ms`;
  let target = url;
  for (let hop = 0; ; hop += 1) {
    const remaining = Math.max(0, Math.ceil(deadline - performance.now()));
    if (hop > 0 && remaining === 0) throw new HttpGetError(timedOut, false);
    const answer = await httpGet(agent, target, headers, { timeoutMs: remaining, timeoutMessage: timedOut, maxBodyBytes });
    const location = REDIRECT_STATUSES.has(answer.statusCode) ? header(answer.headers, 'location') : undefined;
    // Without a Location (or with an empty one) a 3xx leads nowhere: it is the answer, an HTTP error.
    if (!location || hop === MAX_REDIRECTIONS) return answer;
    target = new URL(location, target);
  }
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A weak ETag is fine for If-None-Match; validators are kept only as the server sent them. */
function validatorsOf(headers: Headers): Validators {
  const etag = header(headers, 'etag');
  const lastModified = header(headers, 'last-modified');
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}
