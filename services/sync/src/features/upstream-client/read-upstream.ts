/**
 * Reads everything one run needs. The global lists (getpus, getogs, getlocs, getros) must all succeed or the
 * run is aborted (they throw); a program's lists or a group's feed may fail alone and is recorded instead.
 */
import type { UpstreamSnapshot } from './upstream-snapshot.js';
import { mapConcurrently } from './map-concurrently.js';
import type { CalendarRead, KnownFeed, SeenBodies, StarplanClient } from './starplan-client.js';
import { selectPlanningUnit } from './select-planning-unit.js';
import type { LocatedRoom, UpstreamPlanningGroup, UpstreamProgram } from './upstream-types.js';

/** A failure tied to a program (pgid null: its lists) or to one of its groups (the feed). */
export interface ScopedFailure {
  og: number;
  pgid: number | null;
  message: string;
}

export interface ReadUpstreamOptions {
  /** Local date (YYYY-MM-DD) for choosing the planning unit. */
  today: string;
  forcedPlanningUnit?: number | undefined;
  concurrency?: number;
  /** pgid -> the feed the snapshot's events of that group were built from: such a feed is not parsed again. */
  knownFeeds?: ReadonlyMap<number, KnownFeed>;
}

const DEFAULT_CONCURRENCY = 6;

export async function readUpstream(
  client: StarplanClient,
  options: ReadUpstreamOptions,
): Promise<{ upstream: UpstreamSnapshot; failures: ScopedFailure[] }> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const bodies = new Map<string, string>();
  const planningUnit = selectPlanningUnit(await client.planningUnits(bodies), options.today, options.forcedPlanningUnit);
  const [programs, rooms] = await Promise.all([client.programs(planningUnit.id, bodies), readRooms(client, concurrency, bodies)]);
  const upstream: UpstreamSnapshot = {
    planningUnit,
    programs,
    rooms,
    groupsByProgram: new Map(),
    lecturersByProgram: new Map(),
    feeds: new Map(),
    unchangedFeeds: new Map(),
    feedHashes: new Map(),
    feedValidators: new Map(),
    bodies,
  };
  const failures: ScopedFailure[] = [];
  await mapConcurrently(programs, concurrency, async (program) => {
    try {
      const [groups, lecturers] = await Promise.all([
        client.planningGroups(planningUnit.id, program.id, bodies),
        client.lecturers(program.id, bodies),
      ]);
      upstream.groupsByProgram.set(program.id, groups);
      upstream.lecturersByProgram.set(program.id, lecturers);
    } catch (error) {
      failures.push({ og: program.id, pgid: null, message: messageOf(error) });
    }
  });
  await mapConcurrently(groupsToFetch(programs, upstream.groupsByProgram), concurrency, async ({ og, group }) => {
    try {
      const read = await client.groupCalendarUnlessKnown(planningUnit.id, group.id, options.knownFeeds?.get(group.id), bodies);
      upstream.feedHashes.set(group.id, read.bodyHash);
      keepValidators(upstream, group.id, read);
      if (read.occurrences === null) upstream.unchangedFeeds.set(group.id, read.bodyHash);
      else upstream.feeds.set(group.id, read.occurrences);
    } catch (error) {
      failures.push({ og, pgid: group.id, message: messageOf(error) });
    }
  });
  return { upstream, failures };
}

async function readRooms(client: StarplanClient, concurrency: number, bodies: SeenBodies): Promise<LocatedRoom[]> {
  const locations = await client.locations(bodies);
  const lists = await mapConcurrently(locations, concurrency, async (location) =>
    (await client.rooms(location.id, bodies)).map((room) => ({ ...room, location })),
  );
  return lists.flat();
}

/** Each group once, under the first program listing it. */
function groupsToFetch(programs: UpstreamProgram[], groupsByProgram: Map<number, UpstreamPlanningGroup[]>) {
  const seen = new Set<number>();
  return programs.flatMap((program) =>
    (groupsByProgram.get(program.id) ?? []).flatMap((group) => {
      if (seen.has(group.id)) return [];
      seen.add(group.id);
      return [{ og: program.id, group }];
    }),
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads the feeds of `groups` again and parses them whatever their hash: for feeds that came back unchanged
 * but whose earlier events cannot be reused because something else they were built from changed.
 */
export async function rereadFeeds(
  client: StarplanClient,
  upstream: UpstreamSnapshot,
  groups: readonly { og: number; pgid: number }[],
  concurrency = DEFAULT_CONCURRENCY,
): Promise<ScopedFailure[]> {
  const failures: ScopedFailure[] = [];
  await mapConcurrently(groups, concurrency, async ({ og, pgid }) => {
    upstream.unchangedFeeds.delete(pgid);
    upstream.feedHashes.delete(pgid);
    upstream.feedValidators.delete(pgid);
    try {
      // Unconditional: the body is needed even when it is the known one.
      const read = await client.groupCalendarUnlessKnown(upstream.planningUnit.id, pgid, undefined, upstream.bodies);
      upstream.feedHashes.set(pgid, read.bodyHash);
      keepValidators(upstream, pgid, read);
      upstream.feeds.set(pgid, read.occurrences ?? []);
    } catch (error) {
      failures.push({ og, pgid, message: messageOf(error) });
    }
  });
  return failures;
}

function keepValidators(upstream: UpstreamSnapshot, pgid: number, read: CalendarRead): void {
  if (read.validators.etag !== undefined || read.validators.lastModified !== undefined) upstream.feedValidators.set(pgid, read.validators);
}
