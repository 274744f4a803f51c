import type { Router } from 'express';
import { syncStatusApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { SyncRunStore } from '../write/sync-run-store.js';
import { readSyncStatus } from './sync-status.js';

export function statusRoutes(runs: SyncRunStore, baseUrl: string): Router {
  return contractRouter(syncStatusApi, {
    async status({ res }) {
      res.json({ data: await readSyncStatus(runs, baseUrl) });
    },
  });
}
