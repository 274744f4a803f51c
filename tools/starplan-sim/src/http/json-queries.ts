/** The `json?m=...` methods: each maps the model to StarPlan's field names, or names what is missing. */
import type { UniversityModel } from '../model/university-model.js';
import { integerParam, type Query } from './query-params.js';

/** Items to wrap as `[[...]]`, or the text of a 200-with-error answer. */
export type QueryAnswer = { items: unknown[] } | { error: string };

type Method = (model: UniversityModel, query: Query) => QueryAnswer;

const METHODS: Record<string, Method> = {
  getpus: (model) => ({
    items: model.planningUnits.map((unit) => ({
      id: unit.id,
      shortname: unit.shortname,
      name: unit.name,
      startdate: unit.startdate,
      enddate: unit.enddate,
      dateasdefault: true,
      defaultloc: null,
      visibleonweb: true,
    })),
  }),
  getlocs: (model) => ({ items: model.sortedLocations().map(({ id, shortname, name }) => ({ id, shortname, name })) }),
  getogs: (model, query) => {
    if (!knownPlanningUnit(model, query)) return { error: 'no planning units' };
    return { items: model.sortedPrograms().map(({ id, shortname, name }) => ({ id, shortname, name })) };
  },
  getPgsExt: (model, query) => {
    if (!knownPlanningUnit(model, query)) return { error: 'no planning units' };
    const ogId = knownProgram(model, query);
    if (ogId === undefined) return { error: 'no organisational group' };
    return {
      items: model.groupsOfProgram(ogId).map((group) => ({
        id: group.id,
        shortname: group.shortname,
        name: group.name,
        lectures: model.lecturesOfGroup(group.id).map(({ id, shortname, name, pgid }) => ({ id, shortname, name, pgid })),
      })),
    };
  },
  getros: (model, query) => {
    const locationId = integerParam(query, 'loc');
    if (locationId === undefined || !model.locations.has(locationId)) return { error: 'no location' };
    return {
      items: model
        .roomsOfLocation(locationId)
        .map(({ id, shortname, name, seats, bshortname }) => ({ id, shortname, name, seats, bshortname })),
    };
  },
  getles: (model, query) => {
    const ogId = knownProgram(model, query);
    if (ogId === undefined) return { error: 'no organisational group' };
    return {
      items: model
        .lecturersOfProgram(ogId)
        .map(({ id, name, firstname, title, email }) => ({ id, name, firstname, title, email })),
    };
  },
};

export function answerJsonQuery(model: UniversityModel, method: string, query: Query): QueryAnswer {
  const answer = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  return answer ? answer(model, query) : { error: `unknown method ${method}` };
}

function knownPlanningUnit(model: UniversityModel, query: Query): boolean {
  const puId = integerParam(query, 'pu');
  return puId !== undefined && model.planningUnit(puId) !== undefined;
}

function knownProgram(model: UniversityModel, query: Query): number | undefined {
  const ogId = integerParam(query, 'og');
  return ogId !== undefined && model.programs.has(ogId) ? ogId : undefined;
}

