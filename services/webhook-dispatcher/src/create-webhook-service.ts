import type { WebhookCounter } from '@timetable/contracts';
import { isDatabaseReachable, type Knex } from '@timetable/db';
import { consumerReadiness, type EventBus } from '@timetable/events';
import type { DeveloperIdentity, ServiceModule } from '@timetable/http';
import { PeriodicJob, type Logger } from '@timetable/observability';
import { AddressPolicy } from './features/addresses/address-policy.js';
import { EndpointBreakers, type BreakerSettings } from './features/breaker/endpoint-breakers.js';
import { DEAD_SUBSCRIBERS_INTERVAL_MS, DeadSubscribers } from './features/dead-subscribers/dead-subscribers.js';
import { AddressGuard, type Resolver } from './features/delivery/address-guard.js';
import { DeliveryDispatcher } from './features/delivery/delivery-dispatcher.js';
import { DeliveryStore } from './features/delivery/delivery-store.js';
import { HttpSender } from './features/delivery/http-sender.js';
import { subscribeChangeMatcher } from './features/matching/change-matcher.js';
import { MatchStore } from './features/matching/match-store.js';
import { DeliveryRetention } from './features/retention/delivery-retention.js';
import { SecretCipher } from './features/secrets/secret-cipher.js';
import { prepareStoredSecrets } from './features/secrets/prepare-stored-secrets.js';
import { internalWebhookRoutes } from './features/webhooks/internal-routes.js';
import { WebhookDeliveryStore } from './features/webhooks/webhook-delivery-store.js';
import { webhookRoutes } from './features/webhooks/webhook-routes.js';
import { WebhookService } from './features/webhooks/webhook-service.js';
import { WebhookStore } from './features/webhooks/webhook-store.js';

const RETENTION_INTERVAL_MS = 60 * 60_000;

export interface WebhookServiceDeps {
  /** A knex on the `webhooks` schema, already migrated. */
  knex: Knex;
  bus: EventBus;
  logger: Logger;
  identity: DeveloperIdentity;
  /** WEBHOOK_SECRETS_KEY, decoded: encrypts webhook secrets at rest. */
  secretsKey: Buffer;
  intervalSeconds: number;
  retryDelaysSeconds: number[];
  timeoutMs: number;
  breaker: BreakerSettings;
  allowCidrs: string[];
  denyCidrs: string[];
  hostConcurrency: number;
  retentionDays: number;
  /** DELIVERY_MAX_PENDING_HOURS */
  maxPendingHours: number;
  /** WEBHOOK_DISABLE_AFTER_DAYS */
  disableAfterDays: number;
  maxWebhooksPerDeveloper: number;
  /** Attempts in flight at once; default 32. */
  concurrency?: number;
  /** How long stop() lets attempts in flight finish; default 10 s. */
  drainTimeoutMs?: number;
  /** The clock for every stored time and signature; tests drive cycles with their own. */
  now?: () => Date;
  /** Consumer group of the change matcher; default `webhook-dispatcher`. Tests on a shared broker use their own. */
  groupId?: string;
  /** Name resolution for deliveries; tests resolve names to the addresses they need. */
  resolver?: Resolver;
}

export type WebhookServiceModule = ServiceModule & {
  webhookCounter: WebhookCounter;
  dispatcher: { runCycle(): Promise<void>; stop(): Promise<void> };
  retention: DeliveryRetention;
  deadSubscribers: DeadSubscribers;
};

/**
 * Composition root of the webhook-dispatcher: CRUD routes, the change matcher, the delivery cycle, retention
 * and the limits on dead subscribers.
 */
export async function createWebhookService(deps: WebhookServiceDeps): Promise<WebhookServiceModule> {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ service: 'webhook-dispatcher' });
  const cipher = new SecretCipher(deps.secretsKey);
  await prepareStoredSecrets(deps.knex, cipher, logger);
  const service = new WebhookService({
    webhooks: new WebhookStore({ knex: deps.knex, cipher }),
    deliveries: new WebhookDeliveryStore({ knex: deps.knex }),
    logger,
    now,
    maxWebhooksPerDeveloper: deps.maxWebhooksPerDeveloper,
  });
  const consumer = subscribeChangeMatcher({
    bus: deps.bus, store: new MatchStore({ knex: deps.knex }), logger, now, ...(deps.groupId === undefined ? {} : { groupId: deps.groupId }),
  });
  const policy = new AddressPolicy({ allowCidrs: deps.allowCidrs, denyCidrs: deps.denyCidrs });
  const guard = new AddressGuard({ policy, resolver: deps.resolver });
  const sender = new HttpSender({ guard, timeoutMs: deps.timeoutMs, connectionsPerHost: deps.hostConcurrency });
  const breakers = new EndpointBreakers({ settings: deps.breaker, now, logger });
  const dispatcher = new DeliveryDispatcher({
    store: new DeliveryStore({ knex: deps.knex, cipher }),
    sender,
    breakers,
    logger,
    settings: {
      intervalSeconds: deps.intervalSeconds,
      retryDelaysSeconds: deps.retryDelaysSeconds,
      timeoutMs: deps.timeoutMs,
      concurrency: deps.concurrency ?? 32,
      hostConcurrency: deps.hostConcurrency,
      drainTimeoutMs: deps.drainTimeoutMs ?? 10_000,
      now,
    },
  });
  const retention = new DeliveryRetention({ knex: deps.knex, retentionDays: deps.retentionDays, now });
  const retentionJob = new PeriodicJob({
    name: 'delivery-retention', intervalMs: RETENTION_INTERVAL_MS, logger, run: () => retention.runOnce(),
  });
  const deadSubscribers = new DeadSubscribers({
    knex: deps.knex, maxPendingHours: deps.maxPendingHours, disableAfterDays: deps.disableAfterDays, now, logger,
  });
  const deadSubscribersJob = new PeriodicJob({
    name: 'dead-subscribers', intervalMs: DEAD_SUBSCRIBERS_INTERVAL_MS, logger, run: () => deadSubscribers.runOnce(),
  });
  return {
    name: 'webhook-dispatcher',
    routes: webhookRoutes(service, deps.identity),
    internalRoutes: internalWebhookRoutes(service),
    readiness: [
      { name: 'webhooks-database', check: () => isDatabaseReachable(deps.knex) },
      consumerReadiness('webhooks-changes-consumer', consumer),
    ],
    webhookCounter: service,
    dispatcher,
    retention,
    deadSubscribers,
    async start() {
      await consumer.start();
      dispatcher.start();
      await retentionJob.start();
      await deadSubscribersJob.start();
    },
    async stop() {
      await consumer.stop();
      await dispatcher.stop();
      await retentionJob.stop();
      await deadSubscribersJob.stop();
      breakers.shutdown();
      await sender.close();
    },
  };
}
