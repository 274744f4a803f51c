import type { WebhookCounter } from '@timetable/contracts';
import { isDatabaseReachable, type Knex } from '@timetable/db';
import { consumerReadiness, type EventBus } from '@timetable/events';
import type { DeveloperIdentity, ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { HostBreakers, type BreakerSettings } from './features/breaker/host-breakers.js';
import { AddressGuard } from './features/delivery/address-guard.js';
import { DeliveryDispatcher } from './features/delivery/delivery-dispatcher.js';
import { DeliveryStore } from './features/delivery/delivery-store.js';
import { HttpSender } from './features/delivery/http-sender.js';
import { subscribeChangeMatcher } from './features/matching/change-matcher.js';
import { MatchStore } from './features/matching/match-store.js';
import { internalWebhookRoutes } from './features/webhooks/internal-routes.js';
import { WebhookDeliveriesStore } from './features/webhooks/webhook-deliveries-store.js';
import { webhookRoutes } from './features/webhooks/webhook-routes.js';
import { WebhookService } from './features/webhooks/webhook-service.js';
import { WebhookStore } from './features/webhooks/webhook-store.js';

export interface WebhookServiceDeps {
  /** A knex on the `webhooks` schema, already migrated. */
  knex: Knex;
  bus: EventBus;
  logger: Logger;
  identity: DeveloperIdentity;
  intervalSeconds: number;
  retryDelaysSeconds: number[];
  timeoutMs: number;
  breaker: BreakerSettings;
  denyCidrs: string[];
  /** Attempts in flight at once; default 32. */
  concurrency?: number;
  /** /ready fails while the matcher is more than this many messages behind (CONSUMER_MAX_LAG). */
  maxConsumerLag?: number | undefined;
  /** The clock for every stored time and signature; tests drive cycles with their own. */
  now?: () => Date;
  /** Consumer group of the change matcher; default `webhook-dispatcher`. Tests on a shared broker use their own. */
  groupId?: string;
}

export type WebhookServiceModule = ServiceModule & {
  webhookCounter: WebhookCounter;
  dispatcher: { runCycle(): Promise<void> };
};

/** Composition root of the webhook-dispatcher: CRUD routes, the change matcher and the delivery cycle. */
export function createWebhookService(deps: WebhookServiceDeps): Promise<WebhookServiceModule> {
  const now = deps.now ?? (() => new Date());
  const service = new WebhookService(new WebhookStore(deps.knex), new WebhookDeliveriesStore(deps.knex), deps.logger, now);
  const consumer = subscribeChangeMatcher(deps.bus, new MatchStore(deps.knex), deps.logger, now, deps.groupId);
  const sender = new HttpSender(new AddressGuard(deps.denyCidrs), deps.timeoutMs);
  const breakers = new HostBreakers(deps.breaker, now);
  const dispatcher = new DeliveryDispatcher(new DeliveryStore(deps.knex), sender, breakers, deps.logger, {
    intervalSeconds: deps.intervalSeconds,
    retryDelaysSeconds: deps.retryDelaysSeconds,
    timeoutMs: deps.timeoutMs,
    concurrency: deps.concurrency ?? 32,
    now,
  });
  return Promise.resolve({
    name: 'webhook-dispatcher',
    routes: webhookRoutes(service, deps.identity),
    internalRoutes: internalWebhookRoutes(service),
    readiness: [
      { name: 'webhooks-database', check: () => isDatabaseReachable(deps.knex) },
      consumerReadiness('webhooks-changes-consumer', consumer, deps.maxConsumerLag),
    ],
    webhookCounter: service,
    dispatcher,
    async start() {
      await consumer.start();
      dispatcher.start();
    },
    async stop() {
      await consumer.stop();
      await dispatcher.stop();
      breakers.shutdown();
      await sender.close();
    },
  });
}
