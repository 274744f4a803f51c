import { Router } from 'express';
import { developerIdOf, requireDeveloper, type DeveloperIdentity } from '@timetable/http';
import { usageReport } from './usage-report.js';
import type { UsageStore } from './usage-store.js';

export function usageRoutes(store: UsageStore, identity: DeveloperIdentity, now: () => Date): Router {
  const router = Router();
  router.get('/developers/usage', requireDeveloper(identity), async (_req, res) => {
    res.json({ data: await usageReport(store, developerIdOf(res), now()) });
  });
  return router;
}
