import type { CheckedList } from './starplan-client.js';
import type { UpstreamPlanningUnit } from './upstream-types.js';
import { UpstreamError } from './upstream-error.js';

/**
 * UPSTREAM_PU if set, else the unit whose dates contain today (YYYY-MM-DD), else the one that starts latest.
 * A unit refused at the boundary is left out unless it may be the one to choose: the one UPSTREAM_PU names
 * (or one whose id could not be read), or any of them when no unit that passed contains today. Choosing
 * another unit instead would replace the whole mirror, so the run fails.
 */
export function selectPlanningUnit({ records: units, refusedIds }: CheckedList<UpstreamPlanningUnit>, today: string, forced?: number): UpstreamPlanningUnit {
  if (forced !== undefined) {
    const unit = units.find((candidate) => candidate.id === forced);
    if (unit) return unit;
    if (refusedIds.some((id) => id === forced || id === null)) throw new UpstreamError(`planning unit ${forced} (UPSTREAM_PU) was refused at the boundary`, false);
    throw new UpstreamError(`planning unit ${forced} (UPSTREAM_PU) is not listed upstream`, false);
  }
  const current = units.find((unit) => unit.startdate <= today && today <= unit.enddate);
  if (current) return current;
  if (refusedIds.length > 0) {
    throw new UpstreamError(`no planning unit that passed contains ${today}, and ${refusedIds.length} were refused at the boundary: which one is current cannot be told`, false);
  }
  const latest = [...units].sort((a, b) => (a.startdate < b.startdate ? 1 : a.startdate > b.startdate ? -1 : b.id - a.id))[0];
  if (!latest) throw new UpstreamError('upstream lists no planning units', false);
  return latest;
}
