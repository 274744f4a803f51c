import type { Cache } from './cache.js';
import { MemoryCache } from './memory-cache.js';

/**
 * The namespace whose version is part of every stored response's key: one `bump` (after the catalog changed)
 * retires every entry at once, on every replica, without a scan.
 */
export const RESPONSE_NAMESPACE = 'catalog';

/** A rendered GET response, ready to be written again byte for byte. */
export interface StoredResponse {
  etag: string;
  contentType: string;
  cacheControl: string;
  /** The route pattern that rendered it (`/v1/timetable/week/:week`), the label of its request metrics. */
  route: string;
  /** The Last-Modified header as sent (an IMF-fixdate), or '' for an answer without one. */
  lastModified: string;
  body: Buffer;
}

const NEWLINE = 0x0a;
const HEADER_LINES = 5;
/**
 * Part of every entry's key, raised whenever the stored form changes: during a rolling deploy the old and
 * the new processes then never read each other's entries, which they would split into header lines and body
 * differently.
 */
const ENTRY_FORMAT = 'f2';

/**
 * Rendered responses in the Cache port, shared by the service that renders them (catalog-api) and the
 * gateway, which answers a repeated anonymous GET straight from here (docs/performance.md). Stored as five
 * header lines and the body, so a hit costs neither hashing nor JSON work; header values cannot contain a
 * line break, which makes the format unambiguous.
 */
export class ResponseStore {
  /** The in-memory cache hands out the same Buffer on every hit: it is decoded once. */
  private readonly decoded = new WeakMap<Buffer, StoredResponse>();

  constructor(private readonly cache: Cache) {}

  version(): Promise<number> {
    return this.cache.version(RESPONSE_NAMESPACE);
  }

  bump(): Promise<number> {
    return this.cache.bump(RESPONSE_NAMESPACE);
  }

  async get(version: number, key: string): Promise<StoredResponse | null> {
    return this.decodedOf(await this.cache.get(entryKey(version, key)));
  }

  /**
   * The entry under the current version: without a promise where the cache is in this process (nothing to
   * wait for, and a hit that awaits nothing costs less), as a promise otherwise.
   */
  current(key: string): StoredResponse | null | Promise<StoredResponse | null> {
    const cache = this.cache;
    if (readsInProcess(cache)) return this.decodedOf(cache.getNow(entryKey(cache.versionNow(RESPONSE_NAMESPACE), key)));
    return this.version().then((version) => this.get(version, key));
  }

  set(version: number, key: string, response: StoredResponse, ttlSeconds: number): Promise<void> {
    return this.cache.set(entryKey(version, key), encode(response), ttlSeconds);
  }

  private decodedOf(stored: Buffer | null): StoredResponse | null {
    if (!stored) return null;
    let response = this.decoded.get(stored);
    if (!response) {
      response = decode(stored) ?? undefined;
      if (response) this.decoded.set(stored, response);
    }
    return response ?? null;
  }
}

/** The key of a response by the exact request URL (path and query), as the gateway looks it up. */
export function requestUrlKey(url: string): string {
  return `url:${url}`;
}

/**
 * The in-memory cache, reading as itself: a subclass that overrides a read (to fail it, as tests do) is read
 * through its promises like any other cache, so the override is never bypassed.
 */
function readsInProcess(cache: Cache): cache is MemoryCache {
  return cache instanceof MemoryCache && cache.get === MemoryCache.prototype.get && cache.version === MemoryCache.prototype.version;
}

function entryKey(version: number, key: string): string {
  return `${RESPONSE_NAMESPACE}:v${version}:${ENTRY_FORMAT}:${key}`;
}

function encode(response: StoredResponse): Buffer {
  const head = `${response.etag}\n${response.contentType}\n${response.cacheControl}\n${response.route}\n${response.lastModified}\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), response.body]);
}

function decode(stored: Buffer): StoredResponse | null {
  const lines: string[] = [];
  let start = 0;
  for (let line = 0; line < HEADER_LINES; line += 1) {
    const end = stored.indexOf(NEWLINE, start);
    if (end < 0) return null;
    lines.push(stored.toString('latin1', start, end));
    start = end + 1;
  }
  const [etag = '', contentType = '', cacheControl = '', route = '', lastModified = ''] = lines;
  return { etag, contentType, cacheControl, route, lastModified, body: stored.subarray(start) };
}
