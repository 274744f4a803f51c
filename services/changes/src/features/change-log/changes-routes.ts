import { Router } from 'express';
import { z } from 'zod';
import { NotFoundError } from '@timetable/http';
import { parseChangeListQuery } from './change-list-query.js';
import type { ChangeStore } from './change-store.js';

/** GET /changes and GET /changes/:id, both anonymous. */
export function changesRoutes(store: ChangeStore): Router {
  const router = Router();

  router.get('/changes', async (req, res) => {
    const request = parseChangeListQuery(req.query);
    if (request.kind === 'empty') {
      res.json(request.error === undefined ? { data: [] } : { data: [], error: request.error });
      return;
    }
    res.json({ data: await store.list(request.filter) });
  });

  router.get('/changes/:id', async (req, res) => {
    const { id } = req.params;
    // A malformed id is an unknown id (DESIGN 9), and Postgres would reject it as a uuid anyway.
    const change = z.uuid().safeParse(id).success ? await store.find(id) : undefined;
    if (!change) throw new NotFoundError('change', id);
    res.json({ data: change });
  });

  return router;
}
