import type { Router } from 'express';
import { developerUsageApi } from '@timetable/contracts';
import { contractRouter, type DeveloperIdentity } from '@timetable/http';
import { usageReport } from './usage-report.js';
import type { UsageStore } from './usage-store.js';

export function usageRoutes(store: UsageStore, identity: DeveloperIdentity, now: () => Date): Router {
  return contractRouter(
    developerUsageApi,
    {
      async usage({ developerId, res }) {
        res.json({ data: await usageReport(store, developerId, now()) });
      },
    },
    { identity },
  );
}
