// Calls to the public API of this origin. Failures become ApiError carrying the API's own message.
import { currentKey } from './key-store.js';

const API = '/v1/timetable';
/** A 429 is retried after its Retry-After, this often at most, waiting at most this long each time. */
const RATE_LIMIT_RETRIES = 2;
const MAX_RETRY_WAIT_SECONDS = 10;

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {string[]} [issues] further problems the API listed in its details
   */
  constructor(status, code, message, issues = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.issues = issues;
  }
}

/**
 * @typedef {object} CallOptions
 * @property {string} [method]
 * @property {unknown} [body] sent as JSON
 * @property {boolean} [withKey] sends the session's key in X-API-Key
 */

/**
 * The parsed JSON body of a successful call (null for 204).
 * @param {string} path below /v1/timetable, with its query
 * @param {CallOptions} [options]
 * @returns {Promise<any>}
 */
export async function api(path, options = {}) {
  const request = buildRequest(options);
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(`${API}${path}`, request);
    if (response.status === 429 && attempt < RATE_LIMIT_RETRIES) {
      await wait(retryAfterSeconds(response));
      continue;
    }
    return readBody(response);
  }
}

/**
 * @param {CallOptions} options
 * @returns {RequestInit}
 */
function buildRequest({ method = 'GET', body, withKey = false }) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (withKey) {
    const key = currentKey();
    if (!key) throw new ApiError(401, 'UNAUTHORIZED', 'Use an API key first.');
    headers['X-API-Key'] = key;
  }
  return { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' };
}

/** @param {Response} response */
async function readBody(response) {
  if (response.status === 204) return null;
  const text = await response.text();
  const body = text ? parseJson(text) : null;
  if (response.ok) return body;
  const error = body && typeof body === 'object' ? body.error : undefined;
  if (error && typeof error.message === 'string') throw new ApiError(response.status, String(error.code), error.message, issuesOf(error.details));
  throw new ApiError(response.status, 'HTTP_ERROR', `The service answered ${response.status} ${response.statusText}`.trim());
}

/**
 * The validation issues of an error's details, as "field: problem".
 * @param {unknown} details
 * @returns {string[]}
 */
function issuesOf(details) {
  const issues = details && typeof details === 'object' && 'issues' in details && Array.isArray(details.issues) ? details.issues : [];
  return issues.map((/** @type {{ path?: unknown, message?: unknown }} */ issue) => (issue.path ? `${issue.path}: ${issue.message}` : String(issue.message)));
}

/** @param {string} text */
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** @param {Response} response */
function retryAfterSeconds(response) {
  const seconds = Number(response.headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, MAX_RETRY_WAIT_SECONDS) : 1;
}

/** @param {number} seconds */
function wait(seconds) {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/**
 * The message to show for a failure: the API's message, or what went wrong on the way.
 * @param {unknown} error
 */
export function messageOf(error) {
  if (error instanceof ApiError) return [error.message, ...error.issues.filter((issue) => !error.message.includes(issue))].join('; ');
  if (error instanceof TypeError) return 'The service could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}
