import type { Router } from 'express';
import { upstreamCalendarApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { SnapshotStore } from '../write/snapshot-store.js';
import { semesterCalendarUrl } from './semester-calendar-url.js';

export function icalUrlRoutes(snapshots: SnapshotStore, baseUrl: string): Router {
  return contractRouter(upstreamCalendarApi, {
    // Not wrapped in `data`: the spec's shape for this route.
    async upstreamCalendarUrl({ params, res }) {
      res.json(await semesterCalendarUrl(snapshots, baseUrl, params.semesterId));
    },
  });
}
