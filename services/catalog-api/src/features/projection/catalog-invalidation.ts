import { RESPONSE_NAMESPACE, type Cache } from '@timetable/cache';
import { counter, type Logger } from '@timetable/observability';

const bumpFailures = counter({
  name: 'catalog_cache_invalidation_failures_total',
  help: 'Cache version bumps that failed after the catalog committed (retried until one succeeds)',
});

const RETRY_MS = 2_000;

/**
 * Moves the catalog's cache version on after a projection committed. The commit cannot be undone, and a
 * redelivered batch would change nothing and so never bump again: a failed bump is therefore retried here
 * until one succeeds, and the response cache keeps no entry longer than 60 s, which bounds stale reads
 * even if the bump never gets through.
 */
export interface CatalogInvalidationDeps {
  cache: Cache;
  logger: Logger;
}

export class CatalogInvalidation {
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly cache: Cache;
  private readonly logger: Logger;

  constructor(deps: CatalogInvalidationDeps) {
    this.cache = deps.cache;
    this.logger = deps.logger;
  }

  async invalidate(): Promise<void> {
    try {
      await this.cache.bump(RESPONSE_NAMESPACE);
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    } catch (error) {
      bumpFailures.inc();
      this.logger.warn({ err: error }, 'catalog cache invalidation failed; retrying');
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        void this.invalidate();
      }, RETRY_MS).unref();
    }
  }

  stop(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}
