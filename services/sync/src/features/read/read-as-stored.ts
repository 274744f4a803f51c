/**
 * The first read of a run after a complete one: every request that run made, asked again and only hashed.
 * Most runs find every answer as it was, and then nothing needs decoding but the planning units (today decides
 * which one is current): not the lists, which the usual read (read-upstream.ts) decodes to learn which feeds
 * to ask for, nor the feeds. The requests go in the order the usual read makes them, a step at a time: the
 * planning units; the programs and the locations; every other list; the feeds. A step starts only once the
 * one before found every answer as stored, since a changed list may name other requests; and after the first
 * answer that differs or fails no further request starts. What was received is kept (ReadAhead) for the usual
 * read that follows, so no request is made twice.
 */
import { mapConcurrently } from './map-concurrently.js';
import { ReadAhead } from './read-ahead.js';
import { UPSTREAM_CONCURRENCY } from './read-upstream.js';
import { selectPlanningUnit } from './select-planning-unit.js';
import { groupCalendarRequest, type CheckedList, type HashedAnswer, type KnownFeed, type SeenBodies, type StarplanClient } from './starplan-client.js';
import { UpstreamError } from './upstream-error.js';
import type { UpstreamPlanningUnit } from './upstream-types.js';

/** What the last complete run read: its planning unit and the hash of every answer. */
export interface LastRead {
  planningUnitId: number;
  /** List request (`json?m=...`) -> body hash. */
  lists: ReadonlyMap<string, string>;
  /** pgid -> the feed its group's events were built from. */
  feeds: ReadonlyMap<number, KnownFeed>;
}

export interface ReadAsStoredOptions {
  /** Local date (YYYY-MM-DD) for choosing the planning unit. */
  today: string;
  forcedPlanningUnit?: number | undefined;
  concurrency?: number;
  /** The planning units, when the run has read them already, with what its record of answers holds of them. */
  planningUnitsRead?: PlanningUnitsRead | undefined;
}

/** The planning units as a run read them (with the ids of those refused), and the hash of their answer (`json?m=getpus`). */
export interface PlanningUnitsRead {
  units: CheckedList<UpstreamPlanningUnit>;
  seen: SeenBodies;
}

export interface AsStoredRead {
  /** Every request was answered as the last run read it: `bodies` then holds the hash of every answer. */
  everyAnswerAsStored: boolean;
  planningUnit: UpstreamPlanningUnit;
  bodies: SeenBodies;
  /** What the usual read takes instead of asking again. */
  ahead: ReadAhead;
  /** Group feeds found to be the ones their records name (0 unless every answer was as stored). */
  feedsUnchanged: number;
}

/** One request of the first read: the hash its stored answer has, and how to ask for it. */
interface Ask {
  request: string;
  stored: string;
  answer: () => Promise<HashedAnswer>;
}

const PLANNING_UNITS = 'json?m=getpus';
/** The lists that name the other lists' requests: those of each program, and of each location. */
const LISTS_NAMING_LISTS = new Set(['getogs', 'getlocs']);

/**
 * Reads as described above. A failure of the planning units is the run's failure, as in the usual read; any
 * other failure is kept, and the usual read meets it when it makes that request.
 */
export async function readAsStored(client: StarplanClient, last: LastRead, options: ReadAsStoredOptions): Promise<AsStoredRead> {
  const concurrency = options.concurrency ?? UPSTREAM_CONCURRENCY;
  const { units, seen } = options.planningUnitsRead ?? (await readPlanningUnits(client));
  const planningUnit = selectPlanningUnit(units, options.today, options.forcedPlanningUnit);
  const bodies: SeenBodies = new Map(seen);
  const ahead = new ReadAhead();
  let differs = seen.get(PLANNING_UNITS) !== last.lists.get(PLANNING_UNITS) || planningUnit.id !== last.planningUnitId;
  /** Asks for each request of one step; a step whose predecessor found a difference asks for nothing. */
  const ask = (step: readonly Ask[]) =>
    mapConcurrently(step, concurrency, async ({ request, stored, answer }) => {
      if (differs) return;
      try {
        const { bodyHash, validators, earlier } = await answer();
        bodies.set(request, bodyHash);
        ahead.set(request, earlier ? { kind: 'unchecked', earlier } : { kind: 'known', bodyHash, validators });
        if (bodyHash !== stored) differs = true;
      } catch (error) {
        ahead.set(request, { kind: 'failed', error: error instanceof UpstreamError ? error : new UpstreamError((error as Error).message) });
        differs = true;
      }
    });
  const lists = [...last.lists].filter(([request]) => request !== PLANNING_UNITS).map(([request, stored]) => ({ request, stored, answer: () => client.listAnswer(request) }));
  await ask(lists.filter(({ request }) => LISTS_NAMING_LISTS.has(methodOf(request))));
  await ask(lists.filter(({ request }) => !LISTS_NAMING_LISTS.has(methodOf(request))));
  await ask(
    [...last.feeds].map(([pgid, known]) => ({
      request: groupCalendarRequest(planningUnit.id, pgid),
      stored: known.bodyHash,
      answer: () => client.groupCalendarAnswer(planningUnit.id, pgid, known),
    })),
  );
  return { everyAnswerAsStored: !differs, planningUnit, bodies, ahead, feedsUnchanged: differs ? 0 : last.feeds.size };
}

/** The first request of every run, whatever the store holds: the planning units decide the rest. */
export async function readPlanningUnits(client: StarplanClient): Promise<PlanningUnitsRead> {
  const seen: SeenBodies = new Map();
  return { units: await client.planningUnits(seen), seen };
}

function methodOf(request: string): string {
  return new URLSearchParams(request.slice(request.indexOf('?') + 1)).get('m') ?? '';
}
