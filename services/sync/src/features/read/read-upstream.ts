/**
 * Reads everything one run needs, in two steps: the lists (readLists), then the group feeds (readFeeds), each
 * handed on as it arrives so that a run never holds the occurrences of every feed at once. The global lists
 * (getpus, getogs, getlocs, getros) must all succeed or the run is aborted (they throw); a program's lists or a
 * group's feed may fail alone and is recorded instead.
 */
import type { UpstreamSnapshot } from './upstream-snapshot.js';
import { mapConcurrently } from './map-concurrently.js';
import type { PlanningUnitsRead } from './read-as-stored.js';
import type { FeedOccurrence } from '../validate/feed-occurrence.js';
import type { CalendarRead, KnownFeed, SeenBodies, StarplanClient } from './starplan-client.js';
import { selectPlanningUnit } from './select-planning-unit.js';
import type { LocatedRoom, UpstreamPlanningGroup, UpstreamProgram } from './upstream-types.js';

/** A failure tied to a program (pgid null: its lists) or to one of its groups (the feed). */
export interface ScopedFailure {
  og: number;
  pgid: number | null;
  message: string;
}

export interface ReadListsOptions {
  /** Local date (YYYY-MM-DD) for choosing the planning unit. */
  today: string;
  forcedPlanningUnit?: number | undefined;
  concurrency?: number;
  /** The planning units, when the run has read them already, with what its record of answers holds of them. */
  planningUnitsRead?: PlanningUnitsRead | undefined;
}

export interface ReadFeedsOptions {
  concurrency?: number;
  /** pgid -> the feed the snapshot's events of that group were built from: such a feed is not parsed again. */
  knownFeeds?: ReadonlyMap<number, KnownFeed>;
  /** Called with each parsed feed as it arrives (awaited; the occurrences are not kept). */
  onParsed: (og: number, group: UpstreamPlanningGroup, occurrences: FeedOccurrence[]) => Promise<void> | void;
}

/** A group whose feed is read under the program that lists it first. */
export interface GroupToRead {
  og: number;
  group: UpstreamPlanningGroup;
}

/** Upstream requests a run has open at once. */
export const UPSTREAM_CONCURRENCY = 6;

/**
 * Raise it when what a run asks for or how it reads a list changes: the requests readLists and readFeeds make,
 * a list's schema (upstream-types.ts) or its decoding. A run after a complete one repeats the requests that run
 * made and, finding every answer as it was, ends without decoding the lists; the run fingerprint holds this
 * version, so that the first run after such a change reads the upstream as usual instead.
 */
export const READ_VERSION = 2;

export async function readLists(
  client: StarplanClient,
  options: ReadListsOptions,
): Promise<{ upstream: UpstreamSnapshot; failures: ScopedFailure[] }> {
  const concurrency = options.concurrency ?? UPSTREAM_CONCURRENCY;
  const bodies = new Map<string, string>(options.planningUnitsRead?.seen);
  const units = options.planningUnitsRead?.units ?? (await client.planningUnits(bodies));
  const planningUnit = selectPlanningUnit(units, options.today, options.forcedPlanningUnit);
  const [{ records: programs, refusedIds }, rooms] = await Promise.all([client.programs(planningUnit.id, bodies), readRooms(client, concurrency, bodies)]);
  const upstream: UpstreamSnapshot = {
    planningUnit,
    programs,
    rooms,
    groupsByProgram: new Map(),
    lecturersByProgram: new Map(),
    unchangedFeeds: new Map(),
    feedHashes: new Map(),
    feedValidators: new Map(),
    bodies,
  };
  // A program refused at the boundary keeps what it had, as a program whose lists failed does.
  const failures: ScopedFailure[] = refusedIds.flatMap((og) => (og === null ? [] : [{ og, pgid: null, message: `program ${og} refused at the boundary (getogs)` }]));
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
  client.keepListsRead(bodies);
  return { upstream, failures };
}

/**
 * Reads the feed of every group of `upstream`'s lists. A feed that hashes like its known one is only recorded
 * (`upstream.unchangedFeeds`); every other one is parsed and handed to `onParsed`. A failure of `onParsed`
 * aborts the read (it is not the group's upstream failing).
 */
export async function readFeeds(client: StarplanClient, upstream: UpstreamSnapshot, options: ReadFeedsOptions): Promise<ScopedFailure[]> {
  const failures: ScopedFailure[] = [];
  await mapConcurrently(groupsToRead(upstream.programs, upstream.groupsByProgram), options.concurrency ?? UPSTREAM_CONCURRENCY, async ({ og, group }) => {
    let read: CalendarRead;
    try {
      read = await client.groupCalendarUnlessKnown(upstream.planningUnit.id, { og, pgid: group.id }, options.knownFeeds?.get(group.id), upstream.bodies);
    } catch (error) {
      failures.push({ og, pgid: group.id, message: messageOf(error) });
      return;
    }
    upstream.feedHashes.set(group.id, read.bodyHash);
    keepValidators(upstream, group.id, read);
    if (read.occurrences === null) upstream.unchangedFeeds.set(group.id, read.bodyHash);
    else await options.onParsed(og, group, read.occurrences);
  });
  return failures;
}

/**
 * Reads the feeds of `groups` again and parses them whatever their hash: for feeds that came back unchanged
 * but whose earlier events cannot be reused because something else they were built from changed.
 */
export async function rereadFeeds(
  client: StarplanClient,
  upstream: UpstreamSnapshot,
  groups: readonly GroupToRead[],
  { onParsed, concurrency = UPSTREAM_CONCURRENCY }: Omit<ReadFeedsOptions, 'knownFeeds'>,
): Promise<ScopedFailure[]> {
  const failures: ScopedFailure[] = [];
  await mapConcurrently(groups, concurrency, async ({ og, group }) => {
    upstream.unchangedFeeds.delete(group.id);
    upstream.feedHashes.delete(group.id);
    upstream.feedValidators.delete(group.id);
    let read: CalendarRead;
    try {
      // Unconditional: the body is needed even when it is the known one.
      read = await client.groupCalendarUnlessKnown(upstream.planningUnit.id, { og, pgid: group.id }, undefined, upstream.bodies);
    } catch (error) {
      failures.push({ og, pgid: group.id, message: messageOf(error) });
      return;
    }
    upstream.feedHashes.set(group.id, read.bodyHash);
    keepValidators(upstream, group.id, read);
    await onParsed(og, group, read.occurrences ?? []);
  });
  return failures;
}

async function readRooms(client: StarplanClient, concurrency: number, bodies: SeenBodies): Promise<LocatedRoom[]> {
  const locations = await client.locations(bodies);
  const lists = await mapConcurrently(locations, concurrency, async (location) =>
    (await client.rooms(location.id, bodies)).map((room) => ({ ...room, location })),
  );
  return lists.flat();
}

/** Each group once, under the first program listing it, in the order of the lists. */
export function groupsToRead(programs: readonly UpstreamProgram[], groupsByProgram: ReadonlyMap<number, readonly UpstreamPlanningGroup[]>): GroupToRead[] {
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

function keepValidators(upstream: UpstreamSnapshot, pgid: number, read: CalendarRead): void {
  if (read.validators.etag !== undefined || read.validators.lastModified !== undefined) upstream.feedValidators.set(pgid, read.validators);
}
