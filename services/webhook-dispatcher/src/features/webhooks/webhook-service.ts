import { randomUUID } from 'node:crypto';
import type { DeliveriesQuery, DeliveryResource, WebhookCounter, WebhookCreateInput, WebhookUpdateInput } from '@timetable/contracts';
import { ForbiddenError, NotFoundError } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { requireScopeFilter, withPatch } from './webhook-fields.js';
import type { WebhookDeliveriesStore } from './webhook-deliveries-store.js';
import type { WebhookStore } from './webhook-store.js';
import type { Webhook } from './webhook.js';

export const MAX_DELIVERIES_PAGE = 200;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface DeliveryPage {
  data: DeliveryResource[];
  meta: { total: number; page: number; limit: number; totalPages: number };
}

/** The webhook rules: ownership, the scope's filter id, deletion, test deliveries and the audit trail. */
export class WebhookService implements WebhookCounter {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly deliveries: WebhookDeliveriesStore,
    private readonly logger: Logger,
    private readonly now: () => Date,
  ) {}

  async create(developerId: string, input: WebhookCreateInput): Promise<Webhook> {
    const now = this.now();
    const webhook = withPatch(
      { id: randomUUID(), developerId, url: input.url, secret: null, filterScope: 'global', filterProgramId: null, filterSemesterId: null,
        filterCourseId: null, filterRoomId: null, filterInstructorId: null, eventTypes: [], isActive: true, createdAt: now, updatedAt: now },
      input,
    );
    requireScopeFilter(webhook);
    await this.webhooks.insert(webhook);
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
    const next = { ...withPatch(current, patch), updatedAt: this.now() };
    requireScopeFilter(next);
    await this.webhooks.update(next);
    this.audit('updated', next, { changedFields });
    return next;
  }

  async remove(developerId: string, id: string): Promise<void> {
    const webhook = await this.owned(developerId, id);
    await this.webhooks.markDeleted(webhook.id, this.now());
    this.audit('deleted', webhook);
  }

  async queueTest(developerId: string, id: string): Promise<void> {
    const webhook = await this.owned(developerId, id);
    await this.deliveries.queueTest(webhook.id, this.now());
  }

  async deliveryPage(developerId: string, id: string, query: DeliveriesQuery): Promise<DeliveryPage> {
    const webhook = await this.owned(developerId, id);
    const limit = Math.min(query.limit, MAX_DELIVERIES_PAGE);
    const { deliveries, total } = await this.deliveries.page(webhook.id, { status: query.status, page: query.page, limit });
    return { data: deliveries, meta: { total, page: query.page, limit, totalPages: Math.ceil(total / limit) } };
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

  /** Only the URL's host is logged: paths and queries of webhook URLs often embed tokens. */
  private audit(action: 'created' | 'updated' | 'deleted', webhook: Webhook, extra: Record<string, unknown> = {}): void {
    const event = `audit.timetable.webhook.${action}`;
    this.logger.info(
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
