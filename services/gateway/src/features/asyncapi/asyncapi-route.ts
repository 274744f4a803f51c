import { Router } from 'express';
import { API_PREFIX } from '@timetable/http';
import type { AsyncApiDocument } from './asyncapi-document.js';

export const ASYNCAPI_PATH = `${API_PREFIX}/asyncapi.json`;

/** Serves the document, serialised once: it only changes with a new release. */
export function asyncApiRoute(document: AsyncApiDocument): Router {
  const body = JSON.stringify(document);
  const router = Router();
  router.get(ASYNCAPI_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(body);
  });
  return router;
}
