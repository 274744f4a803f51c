import { Router } from 'express';
import type { SyncRunStore } from '../runs/sync-run-store.js';
import { readSyncStatus } from './sync-status.js';

export function statusRoutes(runs: SyncRunStore, baseUrl: string): Router {
  const router = Router();
  router.get('/sync/status', async (_req, res) => {
    res.json({ data: await readSyncStatus(runs, baseUrl) });
  });
  return router;
}
