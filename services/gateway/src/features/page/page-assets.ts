import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** One file of the page, read once at start: its bytes, its media type and an ETag derived from the bytes. */
export interface PageAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Every servable file of the directory, by name. Only the extensions above are served (the folder's
 * tsconfig.json, which type-checks the scripts, is not). The ETag hashes the content, so every gateway
 * replica gives a file the same one whatever its file dates.
 */
export function loadPageAssets(directory: string): Map<string, PageAsset> {
  const assets = new Map<string, PageAsset>();
  for (const name of readdirSync(directory)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType) continue;
    const body = readFileSync(join(directory, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    assets.set(name, { body, contentType, etag });
  }
  return assets;
}
