// The ISO week of "now" for a hot path: the same label as isoWeekOf, at the cost of an offset lookup.

import { MS_PER_DAY, MS_PER_WEEK } from './local-date-time.js';
import { isoWeekOf } from './iso-week.js';
import { offsetAt } from './zone-offset.js';

/** 1970-01-05, the first Monday of the epoch, in floating milliseconds: weeks are counted from it. */
const FIRST_MONDAY_MS = 4 * MS_PER_DAY;

/**
 * A function answering the label of the ISO week containing `now()` on the wall clock of `timeZone`, exactly
 * `isoWeekOf(now(), timeZone).label` at every instant. The label depends only on the local date, so it is
 * kept per Monday-to-Sunday run of local dates and computed again only when the clock leaves that run (either
 * way: a clock set back is answered as well).
 */
export function weekLabelClock(timeZone: string, now: () => Date): () => string {
  let weekIndex = Number.NaN;
  let label = '';
  return () => {
    const instant = now();
    const instantMs = instant.getTime();
    const index = Math.floor((instantMs + offsetAt(instantMs, timeZone) - FIRST_MONDAY_MS) / MS_PER_WEEK);
    if (index !== weekIndex) {
      label = isoWeekOf(instant, timeZone).label;
      weekIndex = index;
    }
    return label;
  };
}
