import { Router } from 'express';
import { API_PREFIX } from '@timetable/http';
import type { OpenApiDocument } from './openapi-document.js';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

/** Serves the document, serialised once: it only changes with a new release. */
export function openApiRoute(document: OpenApiDocument): Router {
  const body = JSON.stringify(document);
  const router = Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(body);
  });
  return router;
}
