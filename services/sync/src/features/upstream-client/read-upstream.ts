/**
 * Reads everything one run needs. The global lists (getpus, getogs, getlocs, getros) must all succeed or the
 * run is aborted (they throw); a program's lists or a group's feed may fail alone and is recorded instead.
 */
import type { UpstreamSnapshot } from './upstream-snapshot.js';
import { mapConcurrently } from './map-concurrently.js';
import type { StarplanClient } from './starplan-client.js';
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
}

const DEFAULT_CONCURRENCY = 6;

export async function readUpstream(
  client: StarplanClient,
  options: ReadUpstreamOptions,
): Promise<{ upstream: UpstreamSnapshot; failures: ScopedFailure[] }> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const planningUnit = selectPlanningUnit(await client.planningUnits(), options.today, options.forcedPlanningUnit);
  const [programs, rooms] = await Promise.all([client.programs(planningUnit.id), readRooms(client, concurrency)]);
  const upstream: UpstreamSnapshot = {
    planningUnit,
    programs,
    rooms,
    groupsByProgram: new Map(),
    lecturersByProgram: new Map(),
    feeds: new Map(),
  };
  const failures: ScopedFailure[] = [];
  await mapConcurrently(programs, concurrency, async (program) => {
    try {
      const [groups, lecturers] = await Promise.all([client.planningGroups(planningUnit.id, program.id), client.lecturers(program.id)]);
      upstream.groupsByProgram.set(program.id, groups);
      upstream.lecturersByProgram.set(program.id, lecturers);
    } catch (error) {
      failures.push({ og: program.id, pgid: null, message: messageOf(error) });
    }
  });
  await mapConcurrently(groupsToFetch(programs, upstream.groupsByProgram), concurrency, async ({ og, group }) => {
    try {
      upstream.feeds.set(group.id, await client.groupCalendar(planningUnit.id, group.id));
    } catch (error) {
      failures.push({ og, pgid: group.id, message: messageOf(error) });
    }
  });
  return { upstream, failures };
}

async function readRooms(client: StarplanClient, concurrency: number): Promise<LocatedRoom[]> {
  const locations = await client.locations();
  const lists = await mapConcurrently(locations, concurrency, async (location) =>
    (await client.rooms(location.id)).map((room) => ({ ...room, location })),
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
