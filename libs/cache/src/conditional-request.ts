import type { IncomingHttpHeaders } from 'node:http';
import { parseHttpDate } from './http-date.js';

/** What a stored answer carries to validate a conditional GET: its entity tag, and its HTTP-date or ''. */
export interface Validators {
  etag: string;
  /** Last-Modified as sent (an IMF-fixdate), or '' when the answer has none. */
  lastModified: string;
}

/** A strong or weak match of If-None-Match against the entry's tag (RFC 9110 weak comparison, `*` included). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Whether a GET (or HEAD) is answered 304, as RFC 9110 13.2.2 orders the preconditions: If-None-Match decides
 * when the request has one; otherwise If-Modified-Since, when the answer has a Last-Modified and the field
 * is a valid HTTP-date, is met when the answer was last modified at or before that second. A malformed date is
 * ignored. Both the catalog and the gateway's cached-read path decide with this, so their answers agree.
 */
export function isNotModified(headers: IncomingHttpHeaders, validators: Validators): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, validators.etag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined || validators.lastModified === '') return false;
  const since = parseHttpDate(ifModifiedSince);
  const lastModified = parseHttpDate(validators.lastModified);
  return since !== null && lastModified !== null && lastModified <= since;
}
