import { randomBytes } from 'node:crypto';
import { MemoryCache, MemoryRateLimiter, type Cache, type RateLimiter } from '@timetable/cache';
import type { Knex, MigrationSet } from '@timetable/db';
import type { EventBus } from '@timetable/events';
import { DeveloperIdentity } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { openServiceStore } from '@timetable/service-kit';
import type { StandaloneConfig } from './config.js';

/** The shared adapters the embedded root hands to every service it composes. */
export interface EmbeddedContext {
  config: StandaloneConfig;
  logger: Logger;
  bus: EventBus;
  cache: Cache;
  rateLimiter: RateLimiter;
  identity: DeveloperIdentity;
  /** Registers something a service or the host acquired; released after the modules stopped, before the bus and the stores. */
  onClose(what: string, release: () => Promise<unknown>): void;
  /**
   * A knex on the service's own schema, migrated to latest, with `connectionsKept` connections open and kept
   * (none unless given); closed by the root on shutdown.
   */
  openStore(schema: string, migrations: MigrationSet, options?: { connectionsKept?: number }): Promise<Knex>;
  close(): Promise<void>;
}

export interface EmbeddedContextOptions extends Pick<EmbeddedContext, 'config' | 'logger' | 'bus' | 'onClose'> {
  connectionString: string;
}

export function createEmbeddedContext(options: EmbeddedContextOptions): EmbeddedContext {
  const { config, logger, bus, onClose, connectionString } = options;
  const stores: Knex[] = [];
  return {
    config,
    logger,
    bus,
    onClose,
    cache: new MemoryCache(),
    rateLimiter: new MemoryRateLimiter(),
    // One process: the identity secret never leaves it, so a fresh random one per start is enough.
    identity: new DeveloperIdentity(randomBytes(32).toString('hex')),
    async openStore(schema, migrations, options = {}) {
      const knex = await openServiceStore({ connectionString, schema, migrations, logger, poolMax: 5, ...options });
      stores.push(knex);
      return knex;
    },
    async close() {
      await Promise.all(stores.map((knex) => knex.destroy()));
    },
  };
}
