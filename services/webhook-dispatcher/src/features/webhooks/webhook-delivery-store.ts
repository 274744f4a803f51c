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

export interface WebhookDeliveryStoreDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
}

export interface DeliveryPageRequest {
  status?: DeliveryResource['status'];
  page: number;
  limit: number;
}

/** The answer to a test request: queued, or refused until the oldest test of the window leaves it. */
export type TestQueued = { queued: true } | { queued: false; retryAfterSeconds: number };

const TEST_WINDOW_MS = 60_000;

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
   * Scope is ignored: a test goes to the webhook however it is filtered, due on the next cycle. At most
   * `perMinute` tests in any 60 seconds; the count and the insert run under a lock per webhook.
   */
  async queueTest(webhookId: string, now: Date, perMinute: number): Promise<TestQueued> {
    return this.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`tests-of:${webhookId}`]);
      const recent: { created_at: Date }[] = await trx('deliveries')
        .where({ webhook_id: webhookId, origin: 'test' })
        .where('created_at', '>', new Date(now.getTime() - TEST_WINDOW_MS))
        .orderBy('created_at', 'desc')
        .limit(perMinute)
        .select('created_at');
      const oldest = recent[perMinute - 1];
      if (oldest) {
        const retryAfterMs = oldest.created_at.getTime() + TEST_WINDOW_MS - now.getTime();
        return { queued: false as const, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
      }
      await trx('deliveries').insert({
        id: randomUUID(), webhook_id: webhookId, change_id: null, message_id: testMessageId(now), event_type: TEST_EVENT_TYPE,
        status: 'pending', attempts: 0, next_retry_at: now, created_at: now, origin: 'test',
      });
      return { queued: true as const };
    });
  }

  /** A new pending delivery with the same body id and event as the given one; undefined if it is not this webhook's. */
  async redeliver(webhookId: string, deliveryId: string, now: Date): Promise<DeliveryResource | undefined> {
    const result = await this.knex.raw<{ rows: DeliveryRow[] }>(
      `insert into deliveries (id, webhook_id, change_id, message_id, event_type, status, attempts, next_retry_at, created_at, origin)
       select ?, webhook_id, change_id, message_id, event_type, 'pending', 0, ?, ?, 'redeliver'
       from deliveries where id = ? and webhook_id = ?
       returning *`,
      [randomUUID(), now, now, deliveryId, webhookId],
    );
    const [row] = result.rows;
    return row && toResource(row);
  }

  /** How many deliveries were queued. */
  async recover(webhookId: string, since: Date, now: Date): Promise<number> {
    const result = await this.knex.raw<{ rowCount: number }>(RECOVER_SQL, [now, now, webhookId, since]);
    return result.rowCount;
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
