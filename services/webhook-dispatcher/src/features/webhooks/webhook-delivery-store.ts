import { randomUUID } from 'node:crypto';
import type { DeliveryResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { TEST_EVENT_TYPE, testMessageId } from '../delivery/delivery-body.js';
import { secondsUntilRecover, secondsUntilRoom } from './request-limits.js';

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

export interface WebhookDeliveryStoreDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
}

export interface DeliveryPageRequest {
  status?: DeliveryResource['status'];
  page: number;
  limit: number;
}

/** A request refused by its limit, until the window has room again. */
export interface Limited {
  kind: 'limited';
  retryAfterSeconds: number;
}

export type TestQueued = { kind: 'queued' } | Limited;
export type Redelivered = { kind: 'queued'; delivery: DeliveryResource } | { kind: 'unknown' } | Limited;
export type Recovered = { kind: 'queued'; enqueued: number } | Limited;

interface SourceRow {
  change_id: string | null;
  message_id: string;
  event_type: string;
}

// A new pending delivery for each change since the instant whose deliveries to this webhook all failed;
// a change that was delivered or is pending again (an earlier recover or redeliver) is left alone.
const RECOVER_SQL = `
insert into deliveries (id, webhook_id, change_id, message_id, event_type, status, attempts, next_retry_at, created_at, origin)
select gen_random_uuid(), f.webhook_id, f.change_id, f.message_id, f.event_type, 'pending', 0, ?, ?, 'recover'
from (
  select distinct on (d.change_id) d.webhook_id, d.change_id, d.message_id, d.event_type
  from deliveries d
  join matched_changes m on m.id = d.change_id
  where d.webhook_id = ? and d.status = 'failed' and m.created_at >= ?
  order by d.change_id, d.created_at
) f
where not exists (
  select 1 from deliveries o where o.webhook_id = f.webhook_id and o.change_id = f.change_id and o.status in ('pending', 'delivered')
)`;

/**
 * The deliveries a webhook's owner sees and the ones they can ask for: tests, redeliveries, recovery. The
 * dispatcher's side of the same table (lease, record, release) is DeliveryStore.
 */
export class WebhookDeliveryStore {
  private readonly knex: Knex;

  constructor(deps: WebhookDeliveryStoreDeps) {
    this.knex = deps.knex;
  }

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

  /**
   * Scope is ignored: a test goes to the webhook however it is filtered, due on the next cycle, within the
   * test limit.
   */
  async queueTest(webhookId: string, now: Date): Promise<TestQueued> {
    return this.knex.transaction(async (trx) => {
      const wait = await secondsUntilRoom(trx, { webhookId, origin: 'test', now });
      if (wait !== undefined) return limited(wait);
      await trx('deliveries').insert({
        id: randomUUID(), webhook_id: webhookId, change_id: null, message_id: testMessageId(now), event_type: TEST_EVENT_TYPE,
        status: 'pending', attempts: 0, next_retry_at: now, created_at: now, origin: 'test',
      });
      return { kind: 'queued' as const };
    });
  }

  /**
   * A new pending delivery with the same body id and event as the given one of this webhook, within the
   * redeliver limit; a redelivered test is a test, within the test limit.
   */
  async redeliver(webhookId: string, deliveryId: string, now: Date): Promise<Redelivered> {
    return this.knex.transaction(async (trx) => {
      const source: SourceRow | undefined = await trx('deliveries')
        .where({ id: deliveryId, webhook_id: webhookId })
        .first('change_id', 'message_id', 'event_type');
      if (!source) return { kind: 'unknown' as const };
      const origin = source.change_id === null ? 'test' : 'redeliver';
      const wait = await secondsUntilRoom(trx, { webhookId, origin, now });
      if (wait !== undefined) return limited(wait);
      const [row] = (await trx('deliveries')
        .insert({
          id: randomUUID(), webhook_id: webhookId, change_id: source.change_id, message_id: source.message_id, event_type: source.event_type,
          status: 'pending', attempts: 0, next_retry_at: now, created_at: now, origin,
        })
        .returning('*')) as DeliveryRow[];
      return { kind: 'queued' as const, delivery: toResource(row!) };
    });
  }

  /** Queues every failed change since the instant again, once a minute at most. */
  async recover(webhookId: string, since: Date, now: Date): Promise<Recovered> {
    return this.knex.transaction(async (trx) => {
      const wait = await secondsUntilRecover(trx, webhookId, now);
      if (wait !== undefined) return limited(wait);
      const result = await trx.raw<{ rowCount: number }>(RECOVER_SQL, [now, now, webhookId, since]);
      return { kind: 'queued' as const, enqueued: result.rowCount };
    });
  }
}

function limited(retryAfterSeconds: number): Limited {
  return { kind: 'limited', retryAfterSeconds };
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
