import { randomUUID } from 'node:crypto';
import type { DeliveryResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { TEST_EVENT_TYPE, testMessageId } from '../delivery/delivery-body.js';

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_type: string;
  payload: Record<string, unknown> | null;
  status: DeliveryResource['status'];
  attempts: number;
  last_attempt_at: Date | null;
  next_retry_at: Date | null;
  response_code: number | null;
  response_body: string | null;
  error_message: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

export interface DeliveryPageRequest {
  status?: DeliveryResource['status'];
  page: number;
  limit: number;
}

/** The deliveries a webhook's owner sees, and the synthetic test delivery they can queue. */
export class WebhookDeliveriesStore {
  constructor(private readonly knex: Knex) {}

  async page(webhookId: string, request: DeliveryPageRequest): Promise<{ deliveries: DeliveryResource[]; total: number }> {
    const filtered = () => {
      const query = this.knex('deliveries').where({ webhook_id: webhookId });
      return request.status ? query.andWhere({ status: request.status }) : query;
    };
    const [rows, count] = await Promise.all([
      filtered()
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(request.limit)
        .offset((request.page - 1) * request.limit) as Promise<DeliveryRow[]>,
      filtered().count({ count: '*' }).first(),
    ]);
    return { deliveries: rows.map(toResource), total: Number(count?.count ?? 0) };
  }

  /** Scope is ignored: a test goes to the webhook however it is filtered, due on the next cycle. */
  async queueTest(webhookId: string, now: Date): Promise<void> {
    await this.knex('deliveries').insert({
      id: randomUUID(),
      webhook_id: webhookId,
      change_id: null,
      message_id: testMessageId(now),
      event_type: TEST_EVENT_TYPE,
      status: 'pending',
      attempts: 0,
      next_retry_at: now,
      created_at: now,
    });
  }
}

function toResource(row: DeliveryRow): DeliveryResource {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventType: row.event_type,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    nextRetryAt: row.next_retry_at?.toISOString() ?? null,
    responseCode: row.response_code,
    responseBody: row.response_body,
    errorMessage: row.error_message,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}
