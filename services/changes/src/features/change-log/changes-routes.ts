import type { Router } from 'express';
import { z } from 'zod';
import { changesApi } from '@timetable/contracts';
import { contractRouter, NotFoundError } from '@timetable/http';
import { cursorPosition } from './change-cursor.js';
import { changeListRequest } from './change-list-query.js';
import type { ChangeStore } from './change-store.js';

/** GET /changes (by time, or after a cursor) and GET /changes/:id, both anonymous. */
export function changesRoutes(store: ChangeStore): Router {
  return contractRouter(changesApi, {
    async listChanges({ query, res }) {
      const input = query();
      // Checked before since: a bad cursor is a 400 even where an unparseable since would answer empty.
      const afterPosition = input.after === undefined ? undefined : await cursorPosition(store, input.after);
      const request = changeListRequest(input, afterPosition);
      if (request.kind === 'empty') {
        res.json(request.error === undefined ? { data: [] } : { data: [], error: request.error });
        return;
      }
      res.json({ data: await store.list(request.filter) });
    },
    async getChange({ params: { id }, res }) {
      // A malformed id is an unknown id, and PostgreSQL would refuse it as a uuid anyway.
      const change = z.uuid().safeParse(id).success ? await store.find(id) : undefined;
      if (!change) throw new NotFoundError('change', id);
      res.json({ data: change });
    },
  });
}
