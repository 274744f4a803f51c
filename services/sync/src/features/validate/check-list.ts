/**
 * One JSON list answer, record by record. A refused leaf (a room, a lecturer, a lecture, a planning unit) is
 * left out; a refused record that others hang on makes the answer unusable, so that what hangs on it keeps
 * its previous state rather than vanish: a location (its rooms), a planning group (the program's lists), a
 * program without a readable id. A refused program with an id is left out here and fails its program's scope
 * (read-upstream.ts). A list that loses most of its records is unusable too (the safety valve's rule).
 */
import type { z } from 'zod';
import { MAX_LIST_RECORDS } from './bounds.js';
import {
  upstreamLecture,
  upstreamLecturer,
  upstreamLocation,
  upstreamPlanningGroup,
  upstreamPlanningUnit,
  upstreamProgram,
  upstreamRoom,
  type UpstreamLecture,
  type UpstreamPlanningGroup,
} from './list-records.js';
import { detailOf, readableId, reasonOf, refusedMost, type CheckedAnswer, type RecordKind, type Refusal } from './refusal.js';

/** One item checked: the record when it passed, and every refusal it brought (a group's lectures' too). */
interface Checked<T> {
  record?: T;
  refused: Refusal[];
}

interface ListPolicy<T> {
  kind: RecordKind;
  check: (item: unknown) => Checked<T>;
  /** Whether one refused record of the list's own kind makes the whole answer unusable. */
  refusalSpoilsAnswer: (refusal: Refusal) => boolean;
}

const leaf = () => false;

const LISTS = {
  getpus: { kind: 'planning_unit', check: bySchema('planning_unit', upstreamPlanningUnit), refusalSpoilsAnswer: leaf },
  getlocs: { kind: 'location', check: bySchema('location', upstreamLocation), refusalSpoilsAnswer: () => true },
  getogs: { kind: 'program', check: bySchema('program', upstreamProgram), refusalSpoilsAnswer: (refusal) => refusal.id === null },
  getPgsExt: { kind: 'planning_group', check: checkPlanningGroup, refusalSpoilsAnswer: () => true },
  getros: { kind: 'room', check: bySchema('room', upstreamRoom), refusalSpoilsAnswer: leaf },
  getles: { kind: 'lecturer', check: bySchema('lecturer', upstreamLecturer), refusalSpoilsAnswer: leaf },
} satisfies Record<string, ListPolicy<unknown>>;

export type ListMethod = keyof typeof LISTS;
export type ListRecord<M extends ListMethod> = NonNullable<ReturnType<(typeof LISTS)[M]['check']>['record']>;

export function isListMethod(method: string): method is ListMethod {
  return Object.hasOwn(LISTS, method);
}

/** The items of one answer to `json?m=<method>`, checked. */
export function checkList<M extends ListMethod>(method: M, items: readonly unknown[]): CheckedAnswer<ListRecord<M>> {
  const policy = LISTS[method] as ListPolicy<ListRecord<M>>;
  if (items.length > MAX_LIST_RECORDS) {
    const detail = `${items.length} records, at most ${MAX_LIST_RECORDS} are read`;
    return { records: [], refused: [{ kind: policy.kind, reason: 'too_many_records', id: null, detail }], unusable: `${method} answered ${detail}` };
  }
  const { records, refused } = checkEach(items, policy.check);
  const own = refused.filter((refusal) => refusal.kind === policy.kind);
  const spoiling = own.find(policy.refusalSpoilsAnswer);
  if (spoiling) return { records, refused, unusable: `${method}: ${describe(spoiling)}` };
  if (refusedMost(own.length, items.length)) return { records, refused, unusable: `${method}: ${own.length} of ${items.length} records refused` };
  return { records, refused };
}

function checkEach<T>(items: readonly unknown[], check: (item: unknown) => Checked<T>): { records: T[]; refused: Refusal[] } {
  const records: T[] = [];
  const refused: Refusal[] = [];
  for (const item of items) {
    const checked = check(item);
    if (checked.record !== undefined) records.push(checked.record);
    refused.push(...checked.refused);
  }
  return { records, refused };
}

function bySchema<T>(kind: RecordKind, schema: z.ZodType<T>): (item: unknown) => Checked<T> {
  return (item) => {
    const parsed = schema.safeParse(item);
    if (parsed.success) return { record: parsed.data, refused: [] };
    return { refused: [{ kind, reason: reasonOf(parsed.error.issues), id: readableId(item), detail: detailOf(parsed.error.issues) }] };
  };
}

const checkLecture = bySchema<UpstreamLecture>('lecture', upstreamLecture);
const checkGroupShell = bySchema('planning_group', upstreamPlanningGroup);

/**
 * A group whose own fields pass keeps the lectures that pass; one that loses most of its lectures is refused
 * (its events would vanish with them).
 */
function checkPlanningGroup(item: unknown): Checked<UpstreamPlanningGroup> {
  const { record: shell, refused: shellRefused } = checkGroupShell(item);
  if (shell === undefined) return { refused: shellRefused };
  const checked = checkEach(shell.lectures, checkLecture);
  const refused = checked.refused.map((refusal) => ({ ...refusal, pgid: shell.id }));
  if (refusedMost(refused.length, shell.lectures.length)) {
    const detail = `${refused.length} of ${shell.lectures.length} lectures refused`;
    return { refused: [...refused, { kind: 'planning_group', reason: refused[0]?.reason ?? 'malformed', id: shell.id, detail }] };
  }
  return { record: { ...shell, lectures: checked.records }, refused };
}

function describe(refusal: Refusal): string {
  return `${refusal.kind.replace('_', ' ')} ${refusal.id ?? '(no readable id)'} refused (${refusal.reason}: ${refusal.detail})`;
}
