import type { Knex } from '@timetable/db';

/**
 * Deliveries one webhook's owner may queue in any 60 seconds, by origin; `recover` is accepted once a
 * minute. A redelivered test delivery is a test and counts against the test limit, so redelivering cannot
 * get around it. The counts live in PostgreSQL, taken under a lock per webhook, so they hold across any
 * number of dispatcher replicas.
 */
export const DELIVERIES_PER_MINUTE = { test: 10, redeliver: 10 } as const;

const WINDOW_MS = 60_000;

/** The limited kinds of delivery, by their `origin`. */
export type LimitedOrigin = keyof typeof DELIVERIES_PER_MINUTE;

export interface WindowCheck {
  webhookId: string;
  origin: LimitedOrigin;
  now: Date;
}

/**
 * Seconds until the webhook may queue another delivery of this origin, or undefined when it may now. Takes a
 * lock per webhook and origin until the transaction ends: the caller inserts the delivery in it, so two
 * replicas never both see room for the last one.
 */
export async function secondsUntilRoom(trx: Knex.Transaction, check: WindowCheck): Promise<number | undefined> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${check.origin}s-of:${check.webhookId}`]);
  const recent: { created_at: Date }[] = await trx('deliveries')
    .where({ webhook_id: check.webhookId, origin: check.origin })
    .where('created_at', '>', new Date(check.now.getTime() - WINDOW_MS))
    .orderBy('created_at', 'desc')
    .limit(DELIVERIES_PER_MINUTE[check.origin])
    .select('created_at');
  const oldest = recent[DELIVERIES_PER_MINUTE[check.origin] - 1];
  return oldest ? retryAfter(oldest.created_at, check.now) : undefined;
}

/**
 * Records an accepted recover (one a minute), or answers the seconds until the next is accepted. The row stays locked until
 * the transaction ends, so a recover on another replica waits for this one and then sees its time.
 */
export async function secondsUntilRecover(trx: Knex.Transaction, webhookId: string, now: Date): Promise<number | undefined> {
  const accepted = await trx.raw<{ rows: unknown[] }>(
    `insert into webhook_recoveries (webhook_id, accepted_at) values (?, ?)
     on conflict (webhook_id) do update set accepted_at = excluded.accepted_at
     where webhook_recoveries.accepted_at <= ?
     returning webhook_id`,
    [webhookId, now, new Date(now.getTime() - WINDOW_MS)],
  );
  if (accepted.rows.length > 0) return undefined;
  const last: { accepted_at: Date } | undefined = await trx('webhook_recoveries').where({ webhook_id: webhookId }).first('accepted_at');
  return last ? retryAfter(last.accepted_at, now) : 1;
}

function retryAfter(windowStart: Date, now: Date): number {
  return Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now.getTime()) / 1000));
}
