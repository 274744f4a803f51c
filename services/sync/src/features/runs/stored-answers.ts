/**
 * What the stored answers of the last run say about this one: whether that run read everything, the
 * fingerprint of a run's answers, and which stored list rows a commit rewrites.
 */
import { createHash } from 'node:crypto';
import { DERIVATION_VERSION } from '../diff/feed-records.js';
import type { LastRead } from '../read/read-as-stored.js';
import { READ_VERSION } from '../read/read-upstream.js';
import type { SeenBodies } from '../read/starplan-client.js';
import type { SyncRunRecord, SyncRunStatus } from '../write/sync-run-store.js';
import type { StoredHashes } from '../write/upstream-body-store.js';

export interface ListRowChanges {
  lists: Map<string, string>;
  listsRead?: Set<string>;
}

/**
 * The list rows a committing run writes: those whose answer differs from the stored one and, for a run
 * without failures (which read every list), every list request read, so that rows of others are removed.
 */
export function listRowChanges(read: SeenBodies, stored: StoredHashes, status: SyncRunStatus): ListRowChanges {
  const lists = [...read].filter(([request]) => request.startsWith('json?'));
  const changed = new Map(lists.filter(([request, hash]) => stored.lists.get(request) !== hash));
  return status === 'succeeded' ? { lists: changed, listsRead: new Set(lists.map(([request]) => request)) } : { lists: changed };
}

/**
 * What the last run read, when it read and committed everything (it stored a fingerprint): only then do the
 * stored hashes name every request a run would make if nothing changed.
 */
export function lastCompleteRead(stored: StoredHashes, lastCommitted: SyncRunRecord | undefined): LastRead | undefined {
  if (lastCommitted?.status !== 'succeeded' || lastCommitted.upstreamFingerprint === null || lastCommitted.planningUnitId === null) return undefined;
  if (stored.lists.size === 0) return undefined;
  return { planningUnitId: lastCommitted.planningUnitId, lists: stored.lists, feeds: stored.feeds };
}

/**
 * One hash over every answer of a run (request and body hash, in request order), the time zone feeds are
 * read in (part of each feed's hash), DERIVATION_VERSION and READ_VERSION.
 */
export function fingerprintOf(bodies: SeenBodies): string {
  const hash = createHash('sha256').update(`v${DERIVATION_VERSION}\nr${READ_VERSION}\n`);
  for (const request of [...bodies.keys()].sort()) hash.update(`${request}\t${bodies.get(request)}\n`);
  return hash.digest('hex');
}
