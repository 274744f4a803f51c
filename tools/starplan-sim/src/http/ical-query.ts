/** `ical?lan=de&puid=<pu>&type=pg&pgid=<pgid>`: the feed of one planning group in one term. */
import type { CalendarEntry } from '../encode/group-calendar.js';
import { describeOccurrence } from '../model/describe-occurrence.js';
import type { UniversityModel } from '../model/university-model.js';
import { integerParam, stringParam, type Query } from './query-params.js';

export type IcalAnswer = { groupShortname: string; entries: CalendarEntry[] } | { error: string };

export function answerIcalQuery(model: UniversityModel, query: Query): IcalAnswer {
  const puId = integerParam(query, 'puid');
  if (puId === undefined || !model.planningUnit(puId)) return { error: 'no planning units' };
  if (stringParam(query, 'type') !== 'pg') return { error: 'unknown type' };
  const pgid = integerParam(query, 'pgid');
  const group = pgid === undefined ? undefined : model.groups.get(pgid);
  if (!group) return { error: 'no planning group' };
  const entries = model.occurrencesOfGroup(puId, group.id).map((occurrence) => ({
    occurrence: describeOccurrence(model, occurrence, group),
    cancelled: occurrence.cancelled,
  }));
  return { groupShortname: group.shortname, entries };
}
