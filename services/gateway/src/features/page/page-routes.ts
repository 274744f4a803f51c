import { fileURLToPath } from 'node:url';
import { Router, type Request, type Response } from 'express';
import { etagMatches } from '@timetable/cache';
import { loadPageAssets, type PageAsset } from './page-assets.js';

/** Where the page's scripts, stylesheet and icon are served from; `/` serves its HTML. */
export const PAGE_ASSET_PATH = '/page';

/**
 * Nothing inline, nothing from elsewhere: scripts, styles and requests come from this origin only, and the
 * page cannot be framed. The key a developer pastes can only ever be sent back to this origin.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

// In the source tree and in dist/ alike (the build copies the folder beside the compiled routes).
const ASSET_DIRECTORY = fileURLToPath(new URL('./assets/', import.meta.url));

/**
 * The page for people (GET /): one HTML file and its ES modules, served as they are. Browsers revalidate
 * every file (no-cache) and get 304 while its ETag matches, so a new release shows at the next load.
 */
export function pageRoutes(directory: string = ASSET_DIRECTORY): Router {
  const assets = loadPageAssets(directory);
  const index = assets.get('index.html');
  if (!index) throw new Error(`The page's index.html is missing from ${directory}`);
  const router = Router();
  router.get('/', (req, res) => sendAsset(req, res, index));
  router.get(`${PAGE_ASSET_PATH}/:file`, (req, res, next) => {
    const asset = req.params.file === 'index.html' ? undefined : assets.get(req.params.file);
    if (!asset) return next();
    sendAsset(req, res, asset);
  });
  return router;
}

function sendAsset(req: Request, res: Response, asset: PageAsset): void {
  res.setHeader('Content-Security-Policy', PAGE_CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', asset.etag);
  // Compared as the catalog compares its ETags: a conditional request that also says no-cache (as fetch
  // sends them) is still answered 304, which Express' req.fresh would refuse.
  if (etagMatches(req.headers['if-none-match'], asset.etag)) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', asset.contentType);
  res.send(asset.body);
}
