import { randomUUID } from 'node:crypto';
import {
  RECOVER_MAX_DAYS, type DeliveriesQuery, type DeliveryResource, type RecoverInput, type WebhookCounter, type WebhookCreateInput,
  type WebhookUpdateInput,
} from '@timetable/contracts';
import { ConflictError, ForbiddenError, NotFoundError, RateLimitedError, ValidationError } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { requireScopeFilter, withPatch } from './webhook-fields.js';
import type { WebhookDeliveryStore } from './webhook-delivery-store.js';
import type { WebhookStore } from './webhook-store.js';
import type { Webhook } from './webhook.js';

export const MAX_DELIVERIES_PAGE = 200;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY_MS = 86_400_000;

export interface DeliveryPage {
  data: DeliveryResource[];
  meta: { total: number; page: number; limit: number; totalPages: number };
}

export interface WebhookServiceDeps {
  webhooks: WebhookStore;
  deliveries: WebhookDeliveryStore;
  logger: Logger;
  now: () => Date;
  /** MAX_WEBHOOKS_PER_DEVELOPER */
  maxWebhooksPerDeveloper: number;
}

/** The webhook rules: ownership, limits, the scope's filter id, deletion, tests, recovery and the audit trail. */
export class WebhookService implements WebhookCounter {
  private readonly webhooks: WebhookStore;
  private readonly deliveries: WebhookDeliveryStore;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.webhooks = deps.webhooks;
    this.deliveries = deps.deliveries;
  }

  async create(developerId: string, input: WebhookCreateInput): Promise<Webhook> {
    const now = this.deps.now();
    const webhook = withPatch(
      { id: randomUUID(), developerId, url: input.url, secret: null, filterScope: 'global', filterProgramId: null, filterSemesterId: null,
        filterCourseId: null, filterRoomId: null, filterInstructorId: null, eventTypes: [], isActive: true,
        disabledReason: null, disabledAt: null, createdAt: now, updatedAt: now },
      input,
    );
    requireScopeFilter(webhook);
    const limit = this.deps.maxWebhooksPerDeveloper;
    if (!(await this.webhooks.insertWithinLimit(webhook, limit))) {
      throw new ConflictError(`A developer may own at most ${limit} webhooks; delete one to create another`);
    }
    this.audit('created', webhook);
    return webhook;
  }

  list(developerId: string): Promise<Webhook[]> {
    return this.webhooks.listFor(developerId);
  }

  get(developerId: string, id: string): Promise<Webhook> {
    return this.owned(developerId, id);
  }

  async update(developerId: string, id: string, patch: WebhookUpdateInput): Promise<Webhook> {
    const current = await this.owned(developerId, id);
    const changedFields = Object.keys(patch);
    if (changedFields.length === 0) return current;
    const next = { ...withPatch(current, patch), updatedAt: this.deps.now() };
    requireScopeFilter(next);
    await this.webhooks.update(next);
    this.audit('updated', next, { changedFields });
    return next;
  }

  async remove(developerId: string, id: string): Promise<void> {
    const webhook = await this.owned(developerId, id);
    await this.webhooks.markDeleted(webhook.id, this.deps.now());
    this.audit('deleted', webhook);
  }

  async queueTest(developerId: string, id: string): Promise<void> {
    const webhook = await this.owned(developerId, id);
    const outcome = await this.deliveries.queueTest(webhook.id, this.deps.now());
    if (outcome.kind === 'limited') throw new RateLimitedError(outcome.retryAfterSeconds);
  }

  async deliveryPage(developerId: string, id: string, query: DeliveriesQuery): Promise<DeliveryPage> {
    const webhook = await this.owned(developerId, id);
    const limit = Math.min(query.limit, MAX_DELIVERIES_PAGE);
    const { deliveries, total } = await this.deliveries.page(webhook.id, { status: query.status, page: query.page, limit });
    return { data: deliveries, meta: { total, page: query.page, limit, totalPages: Math.ceil(total / limit) } };
  }

  async redeliver(developerId: string, id: string, deliveryId: string): Promise<DeliveryResource> {
    const webhook = await this.active(developerId, id);
    if (!UUID_PATTERN.test(deliveryId)) throw new NotFoundError('delivery', deliveryId);
    const outcome = await this.deliveries.redeliver(webhook.id, deliveryId, this.deps.now());
    if (outcome.kind === 'unknown') throw new NotFoundError('delivery', deliveryId);
    if (outcome.kind === 'limited') throw new RateLimitedError(outcome.retryAfterSeconds);
    return outcome.delivery;
  }

  async recover(developerId: string, id: string, input: RecoverInput): Promise<number> {
    const webhook = await this.active(developerId, id);
    const now = this.deps.now();
    const since = new Date(input.since);
    if (since.getTime() < now.getTime() - RECOVER_MAX_DAYS * DAY_MS) {
      throw new ValidationError(`Body validation failed: since must be at most ${RECOVER_MAX_DAYS} days ago`, {
        issues: [{ path: 'since', message: `must be at most ${RECOVER_MAX_DAYS} days ago` }],
      });
    }
    const outcome = await this.deliveries.recover(webhook.id, since, now);
    if (outcome.kind === 'limited') throw new RateLimitedError(outcome.retryAfterSeconds);
    return outcome.enqueued;
  }

  countFor(developerId: string): Promise<number> {
    return UUID_PATTERN.test(developerId) ? this.webhooks.countFor(developerId) : Promise.resolve(0);
  }

  /** A malformed id is an unknown id (404); someone else's webhook is a 403. */
  private async owned(developerId: string, id: string): Promise<Webhook> {
    const webhook = UUID_PATTERN.test(id) ? await this.webhooks.find(id) : undefined;
    if (!webhook) throw new NotFoundError('webhook', id);
    if (webhook.developerId !== developerId) throw new ForbiddenError('You do not own this webhook');
    return webhook;
  }

  /** Recovery sends to the subscriber now, which an inactive webhook has asked not to happen. */
  private async active(developerId: string, id: string): Promise<Webhook> {
    const webhook = await this.owned(developerId, id);
    if (!webhook.isActive) throw new ConflictError('The webhook is inactive; activate it (PATCH isActive true) first');
    return webhook;
  }

  /** Only the URL's host is logged: paths and queries of webhook URLs often embed tokens. */
  private audit(action: 'created' | 'updated' | 'deleted', webhook: Webhook, extra: Record<string, unknown> = {}): void {
    const event = `audit.timetable.webhook.${action}`;
    this.deps.logger.info(
      {
        event,
        developerId: webhook.developerId,
        webhookId: webhook.id,
        urlHost: new URL(webhook.url).host,
        filterScope: webhook.filterScope,
        eventTypes: webhook.eventTypes,
        isActive: webhook.isActive,
        hasSecret: webhook.secret !== null,
        ...extra,
      },
      event,
    );
  }
}
