import { Router } from 'express';
import type { SnapshotStore } from '../snapshot/snapshot-store.js';
import { semesterCalendarUrl } from './semester-calendar-url.js';

export function icalUrlRoutes(snapshots: SnapshotStore, baseUrl: string): Router {
  const router = Router();
  // Not wrapped in `data`: the spec's shape for this route.
  router.get('/ical/:semesterId/url', async (req, res) => {
    res.json(await semesterCalendarUrl(snapshots, baseUrl, req.params.semesterId));
  });
  return router;
}
