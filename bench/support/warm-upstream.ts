/**
 * Warms the bench's upstream before the first sync. StarPlan is a server that has long been answering other
 * clients; the simulator is a process started a moment before, whose serving code V8 compiles over its first
 * passes (alone, read by the bench's loop: 0.3 s of CPU in its second pass over 720 feeds, 0.2 s in its third,
 * under 0.1 s from the fourth on). Without a warm-up the re-sync right after the first sync, the simulator's
 * second pass over the sync's term, waited for that compiling on the two cores it shares with the sync.
 *
 * The warm-up reads the group feeds of a term the sync does not read (the earliest planning unit listed: the
 * sync reads today's or the latest), so the simulator's code is compiled while every answer of the sync's term
 * is still built during the first sync, as before. At most `maxFeeds` of them: the simulator keeps what it
 * builds, within a bound that the sync's own term must still fit in at scale 100.
 */
import { groupCalendarUrl, UPSTREAM_CONCURRENCY } from '@timetable/sync/testing';
import { bareFetch } from './bare-fetch.js';
import { simulatorGroupIds, simulatorPlanningUnits } from './simulator-listing.js';

export interface UpstreamWarmUp {
  planningUnit: number;
  feeds: number;
  /** The simulator's CPU seconds in each pass. */
  cpuSecondsPerPass: number[];
}

export async function warmSimulator(base: string, passes: number, maxFeeds: number, cpuSeconds: () => Promise<number>): Promise<UpstreamWarmUp> {
  const units = await simulatorPlanningUnits(base);
  if (units.length < 2) throw new Error('the simulator lists a single planning unit: no term to warm it on but the sync\'s own');
  const earliest = units.toSorted((a, b) => a.startdate.localeCompare(b.startdate))[0]!;
  const addresses = (await simulatorGroupIds(base)).slice(0, maxFeeds).map((pgid) => groupCalendarUrl(base, earliest.id, pgid));
  const cpuSecondsPerPass: number[] = [];
  for (let pass = 0; pass < passes; pass += 1) {
    const before = await cpuSeconds();
    await bareFetch(addresses, UPSTREAM_CONCURRENCY);
    cpuSecondsPerPass.push((await cpuSeconds()) - before);
  }
  return { planningUnit: earliest.id, feeds: addresses.length, cpuSecondsPerPass };
}

/** Throws if the sync read the term the upstream was warmed on: its answers would have been built beforehand. */
export function assertWarmedElsewhere(warmUp: UpstreamWarmUp, addressesRead: Iterable<string>): void {
  for (const address of addressesRead) {
    if (new URL(address).searchParams.get('puid') === String(warmUp.planningUnit)) {
      throw new Error(`the sync read planning unit ${warmUp.planningUnit}, the one the upstream was warmed on`);
    }
  }
}
