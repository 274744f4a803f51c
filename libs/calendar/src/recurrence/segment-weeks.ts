// Splits a sorted set of week numbers into the cheapest list of weekly runs.
//
// Policy: each description costs DESCRIPTION_COST and each EXDATE costs EXDATE_COST; a dynamic program picks
// the cheapest contiguous split, preferring fewer descriptions on a tie. So a gap that skips up to three
// occurrences (holidays, a Christmas break) stays inside one series as EXDATEs, while a longer gap splits:
// two dates a year apart become two one-offs rather than a series with 51 EXDATEs. The interval of a run is
// the gcd of its gaps, capped at MAX_INTERVAL_WEEKS (its largest divisor up to the cap) so that two lone
// dates do not turn into an "every 52 weeks" series.

export const MAX_INTERVAL_WEEKS = 4;
const DESCRIPTION_COST = 3;
const EXDATE_COST = 1;

/** weeks[first..last] (indices into the input) repeat every `interval` weeks, with holes. */
export interface WeekRun {
  first: number;
  last: number;
  interval: number;
}

function greatestCommonDivisor(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function largestDivisorUpTo(value: number, limit: number): number {
  for (let divisor = Math.min(value, limit); divisor > 1; divisor--) {
    if (value % divisor === 0) return divisor;
  }
  return 1;
}

/** Splits strictly increasing integer week numbers into runs; deterministic for a given input. */
export function segmentWeeks(weeks: readonly number[]): WeekRun[] {
  const count = weeks.length;
  // bestCost[k] / bestPieces[k]: optimum for the first k weeks; runStart[k]: where its last run begins.
  const bestCost = [0];
  const bestPieces = [0];
  const runStart: number[] = [0];
  const runInterval: number[] = [1];
  for (let last = 0; last < count; last++) {
    let cost = Number.POSITIVE_INFINITY;
    let pieces = 0;
    let gcd = 0;
    for (let first = last; first >= 0; first--) {
      if (first < last) gcd = greatestCommonDivisor(gcd, (weeks[first + 1] ?? 0) - (weeks[first] ?? 0));
      const interval = first === last ? 1 : largestDivisorUpTo(gcd, MAX_INTERVAL_WEEKS);
      const span = ((weeks[last] ?? 0) - (weeks[first] ?? 0)) / interval;
      const exdates = span + 1 - (last - first + 1);
      const candidateCost = (bestCost[first] ?? 0) + DESCRIPTION_COST + EXDATE_COST * exdates;
      const candidatePieces = (bestPieces[first] ?? 0) + 1;
      if (candidateCost < cost || (candidateCost === cost && candidatePieces < pieces)) {
        cost = candidateCost;
        pieces = candidatePieces;
        runStart[last + 1] = first;
        runInterval[last + 1] = interval;
      }
    }
    bestCost[last + 1] = cost;
    bestPieces[last + 1] = pieces;
  }
  const runs: WeekRun[] = [];
  for (let end = count; end > 0; ) {
    const first = runStart[end] ?? 0;
    runs.push({ first, last: end - 1, interval: runInterval[end] ?? 1 });
    end = first;
  }
  return runs.reverse();
}
