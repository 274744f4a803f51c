import { z } from 'zod';
import { defineRoutes } from './api-route.js';

const instant = z.iso.datetime();

/** GET /sync/status: when the mirror last read StarPlan, and the latest run's failure if any. */
export const syncStatusResource = z.object({
  lastFetchedAt: instant.nullable().describe('End of the latest run that read the upstream; null before the first'),
  currentPu: z.number().int().nullable().describe('StarPlan planning unit id in use'),
  baseUrl: z.string().describe('StarPlan base URL'),
  lastError: z
    .object({
      errorMessage: z.string(),
      updatedAt: instant,
      programId: z.uuid().nullable().describe('The failing program/semester pair; null where not tied to one'),
      semesterId: z.uuid().nullable(),
    })
    .nullable()
    .describe('Null when the latest run succeeded for every program/semester pair'),
});

/** GET /ical/{semesterId}/url, not wrapped in data. */
export const semesterCalendarUrlResource = z.object({
  url: z.string().describe('<UPSTREAM_BASE_URL>/ical?lan=de&puid=<pu>&type=pg&pgid=<pgid>'),
  splanProgramId: z.string(),
  splanSemesterId: z.string(),
});

export type SyncStatusResource = z.infer<typeof syncStatusResource>;
export type SemesterCalendarUrlResource = z.infer<typeof semesterCalendarUrlResource>;

export const syncStatusApi = defineRoutes('sync', {
  status: {
    method: 'get',
    path: '/sync/status',
    summary: 'State of the upstream sync',
    tag: 'Sync',
    auth: false,
    responses: { 200: { description: 'Sync status', schema: z.object({ data: syncStatusResource }) } },
  },
});

export const upstreamCalendarApi = defineRoutes('sync', {
  upstreamCalendarUrl: {
    method: 'get',
    path: '/ical/{semesterId}/url',
    summary: "The upstream (StarPlan) address of the semester's calendar",
    tag: 'Calendar feeds',
    auth: false,
    params: z.object({ semesterId: z.string().describe('UUID; a malformed id is an unknown id (404)') }),
    responses: {
      200: { description: 'Upstream calendar address (not wrapped in data)', schema: semesterCalendarUrlResource },
      404: { description: 'Unknown semester, no cached upstream row yet, or no upstream configured' },
    },
  },
});
