import type { UpstreamPlanningUnit } from './upstream-types.js';
import { UpstreamError } from './upstream-error.js';

/** UPSTREAM_PU if set, else the unit whose dates contain today (YYYY-MM-DD), else the one that starts latest. */
export function selectPlanningUnit(units: readonly UpstreamPlanningUnit[], today: string, forced?: number): UpstreamPlanningUnit {
  if (forced !== undefined) {
    const unit = units.find((candidate) => candidate.id === forced);
    if (!unit) throw new UpstreamError(`planning unit ${forced} (UPSTREAM_PU) is not listed upstream`, false);
    return unit;
  }
  const current = units.find((unit) => unit.startdate <= today && today <= unit.enddate);
  if (current) return current;
  const latest = [...units].sort((a, b) => (a.startdate < b.startdate ? 1 : a.startdate > b.startdate ? -1 : b.id - a.id))[0];
  if (!latest) throw new UpstreamError('upstream lists no planning units', false);
  return latest;
}
