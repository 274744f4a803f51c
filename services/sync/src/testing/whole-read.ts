/** The next snapshot built at once from a whole read: for tests and tools that hold every parsed feed. */
import type { FeedOccurrence } from '../features/validate/feed-occurrence.js';
import { groupsToRead, type GroupToRead, type ScopedFailure } from '../features/read/read-upstream.js';
import type { UpstreamSnapshot } from '../features/read/upstream-snapshot.js';
import type { IndexedEntity } from '../features/diff/diff-snapshots.js';
import type { FeedRecord } from '../features/diff/feed-records.js';
import { NextSnapshotBuilder, type NextSnapshot } from '../features/diff/next-snapshot.js';
import { rejectImplausibleLists } from '../features/diff/safety-valve.js';
import { ScopeCounts } from '../features/diff/scope-counts.js';

/** What an upstream read with every parsed feed in hand gives: for tests and tools that have the whole read. */
export interface WholeRead extends UpstreamSnapshot {
  /** pgid -> occurrences of each feed that was parsed. */
  feeds: Map<number, FeedOccurrence[]>;
}

/** The whole build at once; `feedsToReread` lists the unchanged feeds whose events could not be reused. */
export function buildNextSnapshot(
  read: WholeRead,
  fetchFailures: readonly ScopedFailure[],
  previous: ReadonlyMap<string, IndexedEntity>,
  feedRecords: ReadonlyMap<number, FeedRecord> = new Map(),
): NextSnapshot & { feedsToReread: GroupToRead[] } {
  // rejectImplausibleLists drops what it rejects from these maps; the caller may build again from the same read.
  const upstream: UpstreamSnapshot = { ...read, groupsByProgram: new Map(read.groupsByProgram), lecturersByProgram: new Map(read.lecturersByProgram) };
  const counts = ScopeCounts.of(previous.values());
  const failures = [...fetchFailures, ...rejectImplausibleLists(upstream, counts)];
  const builder = new NextSnapshotBuilder({ upstream, failures, previous, counts, feedRecords });
  const feedsToReread: GroupToRead[] = [];
  for (const { og, group } of groupsToRead(upstream.programs, upstream.groupsByProgram)) {
    const occurrences = read.feeds.get(group.id);
    const unchangedHash = upstream.unchangedFeeds.get(group.id);
    if (occurrences !== undefined) builder.addFeed(og, group, occurrences);
    else if (unchangedHash !== undefined && !builder.reuseFeed(og, group, unchangedHash)) feedsToReread.push({ og, group });
  }
  return { ...builder.finish(), feedsToReread };
}
