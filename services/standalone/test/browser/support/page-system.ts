/** The embedded system the browser tests open the page of, with loopback receivers allowed and quick deliveries. */
import { startEmbeddedOnTestDatabase, type EmbeddedOnTestDatabase } from '../../support/embedded-on-test-database.js';

export interface PageSystem {
  /** e.g. http://127.0.0.1:40123, without a trailing slash */
  origin: string;
  stop(): Promise<void>;
}

export async function startPageSystem(): Promise<PageSystem> {
  const embedded: EmbeddedOnTestDatabase = await startEmbeddedOnTestDatabase({
    RATE_LIMITS: '1000000/1s',
    // Every test registers from 127.0.0.1; the default budget (5 a minute) would refuse the later ones.
    REGISTER_LIMITS: '1000000/1s',
    SYNC_INTERVAL_SECONDS: '86400',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    DELIVERY_INTERVAL_SECONDS: '1',
  });
  try {
    await embedded.system.firstSyncPublished();
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return { origin: embedded.system.url.replace(/\/+$/, ''), stop: () => embedded.stop() };
}
