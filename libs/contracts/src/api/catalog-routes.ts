import { z } from 'zod';
import { defineRoutes, type RouteSpec } from './api-route.js';
import { toleratingControlCharacters } from './malformed-values.js';
import {
  catalogStatistics,
  courseResource,
  instructorResource,
  occurrenceResource,
  programResource,
  roomResource,
  roomScheduleEntry,
  searchResults,
  semesterResource,
  weekResponse,
} from './catalog-resources.js';

const CATALOG = 'Catalog';
const WEEK = 'Week';
const idParam = z.object({ id: z.string().describe('UUID; a malformed id is an unknown id (404)') });
const notFound = { description: 'Unknown or malformed id' };
const filterId = (what: string) => z.string().optional().describe(`${what} UUID; a malformed id matches nothing`);
/** Comma-separated ids, repeatable (`?groupIds=a,b&groupIds=c`); entries trimmed, empty ones dropped. */
const idListFilter = (what: string) =>
  toleratingControlCharacters(
    z
      .union([z.string(), z.array(z.string())])
      .optional()
      .transform(toIdList)
      .describe(`Comma-separated ${what} UUIDs; entries trimmed, empty ones dropped, malformed ones (control characters included) match nothing`),
  );

/** Undefined (no filter) when no entry remains; malformed ids stay, and the catalog lets them match nothing. */
function toIdList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const entries = (Array.isArray(value) ? value.join(',') : value).split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.length > 0 ? entries : undefined;
}

const instant = (meaning: string) =>
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 instant' })
    .transform((value) => new Date(value))
    .optional()
    .describe(`ISO 8601 instant, ${meaning}`);

/** The kinds /search looks for, each with its own bucket. */
export const SEARCH_KINDS = ['course', 'room', 'instructor', 'program'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];
const data = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

function single<const P extends string>(path: P, kind: string, schema: z.ZodType) {
  return {
    method: 'get',
    path,
    summary: `One ${kind}`,
    tag: CATALOG,
    auth: false,
    params: idParam,
    responses: { 200: { description: `The ${kind}`, schema: data(schema) }, 404: notFound },
  } satisfies RouteSpec;
}

function eventsOf<const P extends string>(path: P, summary: string) {
  return {
    method: 'get',
    path,
    summary,
    tag: CATALOG,
    auth: false,
    params: idParam,
    responses: { 200: { description: 'One entry per event (series or one-off), sorted by startTime, then id', schema: data(z.array(occurrenceResource)) }, 404: notFound },
  } satisfies RouteSpec;
}

/** The week views' id filters; the personal feed takes the same ones. */
export const occurrenceFilterQuery = z.object({
  instructorIds: idListFilter('instructor'),
  roomIds: idListFilter('room'),
  courseIds: idListFilter('course'),
  groupIds: idListFilter('semester (student group)'),
});

const weekResponses = {
  200: { description: 'Occurrences starting in the week (Monday to Sunday, server time zone), sorted by start; not wrapped in data', schema: weekResponse },
};

export const programsApi = defineRoutes('catalog-api', {
  list: {
    method: 'get',
    path: '/programs',
    summary: 'Study programs',
    tag: CATALOG,
    auth: false,
    query: z.object({
      search: z.string().optional().describe('Case-insensitive contains on the name'),
      degreeType: z.string().optional().describe('Exact degree type'),
      archived: z.string().optional().describe("'true' returns only inactive programs; default: active ones"),
    }),
    responses: { 200: { description: 'Programs sorted by name', schema: data(z.array(programResource)) } },
  },
  get: single('/programs/{id}', 'program', programResource),
  semesters: {
    method: 'get',
    path: '/programs/{id}/semesters',
    summary: "A program's semesters",
    tag: CATALOG,
    auth: false,
    params: idParam,
    responses: { 200: { description: 'Semesters sorted by number', schema: data(z.array(semesterResource)) }, 404: notFound },
  },
  courses: eventsOf('/programs/{id}/courses', "Events of every semester of the program (union of their academic periods)"),
});

export const semestersApi = defineRoutes('catalog-api', {
  list: {
    method: 'get',
    path: '/semesters',
    summary: 'Semesters, each with its program',
    tag: CATALOG,
    auth: false,
    query: z.object({ programId: filterId('Program') }),
    responses: { 200: { description: 'Semesters sorted by program name and number', schema: data(z.array(semesterResource)) } },
  },
  get: single('/semesters/{id}', 'semester', semesterResource),
  courses: eventsOf('/semesters/{id}/courses', "Events of the semester's academic period"),
});

export const coursesApi = defineRoutes('catalog-api', {
  list: {
    method: 'get',
    path: '/courses',
    summary: 'Courses (lectures)',
    tag: CATALOG,
    auth: false,
    query: z.object({
      search: z.string().optional().describe('Case-insensitive contains on the name'),
      periodId: filterId('Academic period').describe('Courses that have events in this academic period; a malformed id matches nothing'),
    }),
    responses: { 200: { description: 'Courses sorted alphabetically', schema: data(z.array(courseResource)) } },
  },
  get: single('/courses/{id}', 'course', courseResource),
});

export const roomsApi = defineRoutes('catalog-api', {
  list: {
    method: 'get',
    path: '/rooms',
    summary: 'Rooms',
    tag: CATALOG,
    auth: false,
    query: z.object({
      search: z.string().optional().describe('Case-insensitive contains on the name'),
      building: z.string().optional().describe('Exact building'),
    }),
    responses: { 200: { description: 'Rooms sorted by name', schema: data(z.array(roomResource)) } },
  },
  get: single('/rooms/{id}', 'room', roomResource),
  schedule: {
    method: 'get',
    path: '/rooms/{id}/schedule',
    summary: 'Occurrences in a room',
    tag: CATALOG,
    auth: false,
    params: idParam,
    query: z.object({ from: instant('default now'), to: instant('default now plus 180 days') }),
    responses: {
      200: {
        description: 'Occurrences starting in [from, to), sorted by start',
        schema: data(z.object({ room: roomResource, period: z.object({ from: z.iso.datetime(), to: z.iso.datetime() }), courses: z.array(roomScheduleEntry) })),
      },
      400: { description: 'Malformed from or to' },
      404: notFound,
    },
  },
});

export const instructorsApi = defineRoutes('catalog-api', {
  list: {
    method: 'get',
    path: '/instructors',
    summary: 'Instructors',
    tag: CATALOG,
    auth: false,
    query: z.object({ search: z.string().optional().describe('Case-insensitive contains on the name') }),
    responses: { 200: { description: 'Instructors sorted by name', schema: data(z.array(instructorResource)) } },
  },
  get: single('/instructors/{id}', 'instructor', instructorResource),
  courses: {
    method: 'get',
    path: '/instructors/{id}/courses',
    summary: 'Events taught by an instructor',
    tag: CATALOG,
    auth: false,
    params: idParam,
    responses: {
      200: {
        description: 'Not double-wrapped: the instructor beside one entry per event, sorted by startTime, then id',
        schema: z.object({ instructor: instructorResource, data: z.array(occurrenceResource) }),
      },
      404: notFound,
    },
  },
});

export const searchApi = defineRoutes('catalog-api', {
  search: {
    method: 'get',
    path: '/search',
    summary: 'Search courses, rooms, instructors and programs',
    tag: CATALOG,
    auth: false,
    query: z.object({
      q: z.string().optional().describe('At least 2 characters, else every bucket is empty'),
      type: z.enum(SEARCH_KINDS).optional().describe('Search only this kind; the other buckets are empty'),
    }),
    responses: {
      200: { description: 'At most 20 results per bucket, sorted by name', schema: data(searchResults) },
      400: { description: 'Unknown type' },
    },
  },
});

export const statisticsApi = defineRoutes('catalog-api', {
  statistics: {
    method: 'get',
    path: '/statistics',
    summary: 'Catalog counts',
    tag: CATALOG,
    auth: false,
    responses: { 200: { description: 'Integer counts', schema: data(catalogStatistics) } },
  },
});

export const weekApi = defineRoutes('catalog-api', {
  current: { method: 'get', path: '/week/current', summary: 'The week containing now', tag: WEEK, auth: false, query: occurrenceFilterQuery, responses: weekResponses },
  week: {
    method: 'get',
    path: '/week/{week}',
    summary: 'An explicit ISO week',
    tag: WEEK,
    auth: false,
    params: z.object({ week: z.string().regex(/^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$/, 'must be an ISO week, YYYY-Www').describe('YYYY-Www') }),
    query: occurrenceFilterQuery,
    responses: { ...weekResponses, 400: { description: 'Malformed week, or a week that does not exist (2025-W53)' } },
  },
});
