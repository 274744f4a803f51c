// Finding things of the catalog by name, and naming a thing known only by its id.
import { api } from './api.js';

/** @typedef {'program' | 'semester' | 'course' | 'room' | 'instructor'} Kind */
/** @typedef {{ kind: Kind, id: string, name: string, detail: string }} Found */

/** @type {Record<Kind, { label: string, plural: string }>} */
export const KINDS = {
  program: { label: 'Program', plural: 'programs' },
  semester: { label: 'Semester', plural: 'semesters' },
  course: { label: 'Course', plural: 'courses' },
  room: { label: 'Room', plural: 'rooms' },
  instructor: { label: 'Instructor', plural: 'instructors' },
};

const PER_KIND = 20;

/**
 * Things whose name holds the text, of one kind or of all (the API's /search, and the semester list,
 * which /search does not cover).
 * @param {string} text
 * @param {Kind | ''} kind
 * @returns {Promise<Found[]>}
 */
export async function searchCatalog(text, kind) {
  const semesters = kind === '' || kind === 'semester' ? findSemesters(text) : Promise.resolve([]);
  const others = kind === 'semester' ? Promise.resolve([]) : searchApi(text, kind);
  const [foundSemesters, foundOthers] = await Promise.all([semesters, others]);
  return [...foundOthers.filter((found) => found.kind === 'program'), ...foundSemesters, ...foundOthers.filter((found) => found.kind !== 'program')];
}

/**
 * @param {string} text
 * @param {Kind | ''} kind
 * @returns {Promise<Found[]>}
 */
async function searchApi(text, kind) {
  const query = new URLSearchParams({ q: text });
  if (kind) query.set('type', kind);
  const { data } = await api(`/search?${query}`);
  return [
    ...data.programs.map(toFound('program')),
    ...data.courses.map(toFound('course')),
    ...data.rooms.map(toFound('room')),
    ...data.instructors.map(toFound('instructor')),
  ];
}

/** @type {Promise<any[]> | undefined} */
let allSemesters;

/**
 * @param {string} text
 * @returns {Promise<Found[]>}
 */
async function findSemesters(text) {
  allSemesters ??= api('/semesters').then((body) => body.data).catch((error) => {
    allSemesters = undefined;
    throw error;
  });
  const needle = text.trim().toLocaleLowerCase();
  const semesters = await allSemesters;
  return semesters
    .filter((semester) => [semester.name, semester.program.name, semester.program.shortName].some((value) => String(value).toLocaleLowerCase().includes(needle)))
    .slice(0, PER_KIND)
    .map(toFound('semester'));
}

/**
 * The semesters of a program: what "picking a program" selects.
 * @param {string} programId
 * @returns {Promise<Found[]>}
 */
export async function semestersOf(programId) {
  const [{ data: program }, { data: semesters }] = await Promise.all([api(`/programs/${programId}`), api(`/programs/${programId}/semesters`)]);
  return semesters.map((/** @type {any} */ semester) => toFound('semester')({ ...semester, program }));
}

/**
 * A thing known by its id, or null when the catalog does not know it (any more).
 * @param {Kind} kind
 * @param {string} id
 * @returns {Promise<Found | null>}
 */
export async function describe(kind, id) {
  try {
    const { data } = await api(`/${KINDS[kind].plural}/${encodeURIComponent(id)}`);
    return toFound(kind)(data);
  } catch (error) {
    if (error instanceof Error && 'status' in error && error.status === 404) return null;
    throw error;
  }
}

/**
 * @param {Kind} kind
 * @returns {(entry: any) => Found}
 */
function toFound(kind) {
  return (entry) => ({ kind, id: entry.id, name: nameOf(kind, entry), detail: detailOf(kind, entry) });
}

/**
 * @param {Kind} kind
 * @param {any} entry
 */
function nameOf(kind, entry) {
  return kind === 'semester' && entry.program ? `${entry.program.shortName} ${entry.name}` : String(entry.name);
}

/**
 * @param {Kind} kind
 * @param {any} entry
 */
function detailOf(kind, entry) {
  switch (kind) {
    case 'program':
      return [entry.shortName, entry.degreeType].filter(Boolean).join(', ');
    case 'semester':
      return entry.program ? String(entry.program.name) : '';
    case 'course':
      return String(entry.code ?? '');
    case 'room':
      return entry.building ? `building ${entry.building}` : '';
    case 'instructor':
      return String(entry.email ?? '');
  }
}

/**
 * How a found thing reads in lists: "Course: Mathematik 1 (MA1)".
 * @param {Found} found
 */
export function labelOf(found) {
  return `${KINDS[found.kind].label}: ${found.name}${found.detail ? ` (${found.detail})` : ''}`;
}
