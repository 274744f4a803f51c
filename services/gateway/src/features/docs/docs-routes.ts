import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import { ASYNCAPI_PATH } from '../asyncapi/asyncapi-route.js';
import { OPENAPI_PATH } from '../openapi/openapi-route.js';
import { docsInitializer, docsPage } from './docs-page.js';

/** Only the files the page needs; the rest of the package (its demo page) is not served. */
const SWAGGER_ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

/**
 * The API reference page: swagger-ui from node_modules, so it works offline and loads nothing from a
 * CDN. The initializer is a separate script (not inline) so a strict Content-Security-Policy can apply.
 */
export function docsRoutes(): Router {
  const assetDirectory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const page = docsPage({ openApiPath: OPENAPI_PATH, asyncApiPath: ASYNCAPI_PATH });
  const initializer = docsInitializer(OPENAPI_PATH);
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/docs/initializer.js', (_req, res) => {
    res.type('application/javascript').send(initializer);
  });
  router.get('/docs/assets/:file', (req, res, next) => {
    const file = req.params.file;
    if (!SWAGGER_ASSETS.has(file)) return next();
    res.sendFile(join(assetDirectory, file), { maxAge: '1d' });
  });
  return router;
}
