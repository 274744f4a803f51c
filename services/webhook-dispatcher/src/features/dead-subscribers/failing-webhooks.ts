import type { Knex } from '@timetable/db';
import type { Logger } from '@timetable/observability';

const DAY_MS = 86_400_000;

/**
 * Disables, in one statement, the active webhooks whose deliveries have all failed for the span (seconds).
 * Counted from `since`, the later of the webhook's last change (creation, PATCH, being enabled again) and its
 * last successful delivery: the failed attempts after it (deliveries not delivered whose latest attempt came
 * after it) reach from the creation of the oldest of their deliveries (not before `since`) to the newest
 * attempt, and that is at least the span. So it takes failures that went on for the span, not one failure
 * followed by silence, and a success, an edit or being enabled again starts the count anew.
 * The first step only rules out, cheaply, the webhooks with a delivery delivered within the span (their
 * newest deliveries, found first); only the rest have their history read. A webhook changed meanwhile
 * (its updated_at moved: its owner edited or enabled it) is left alone.
 */
export const DISABLE_SQL = `
with quiet as materialized (
  select w.id, w.updated_at from webhooks w
  where w.is_active and w.deleted_at is null
    and not exists (select 1 from deliveries d where d.webhook_id = w.id and d.delivered_at > :windowStart)
),
streaks as (
  select q.id, q.updated_at, f.failing_since, f.last_failure_at
  from quiet q
  cross join lateral (
    select greatest(q.updated_at, max(d.delivered_at)) as since
    from deliveries d where d.webhook_id = q.id and d.status = 'delivered'
  ) s
  cross join lateral (
    select greatest(s.since, min(d.created_at)) as failing_since, max(d.last_attempt_at) as last_failure_at
    from deliveries d
    where d.webhook_id = q.id and d.status <> 'delivered' and d.last_attempt_at > s.since
  ) f
  where extract(epoch from f.last_failure_at - f.failing_since) >= :spanSeconds
)
update webhooks w set is_active = false, disabled_reason = :reason, disabled_at = :now, updated_at = :now
from streaks s
where w.id = s.id and w.is_active and w.deleted_at is null and w.updated_at = s.updated_at
returning w.id, w.developer_id, w.url, s.failing_since, s.last_failure_at`;

interface DisabledRow {
  id: string;
  developer_id: string;
  url: string;
  failing_since: Date;
  last_failure_at: Date;
}

export interface FailingWebhooksDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** WEBHOOK_DISABLE_AFTER_DAYS */
  disableAfterDays: number;
  now: () => Date;
  /** Where each webhook disabled gets its audit line. */
  logger: Logger;
}

/**
 * Sets inactive the webhooks whose deliveries have all failed for WEBHOOK_DISABLE_AFTER_DAYS (see
 * DISABLE_SQL for what that means exactly), with `disabledReason` and `disabledAt`, and writes the audit line
 * `audit.timetable.webhook.disabled`. Their pending deliveries keep retrying, as any inactive webhook's do;
 * nothing new is matched to them until their owner sets isActive true again.
 */
export class FailingWebhooks {
  constructor(private readonly deps: FailingWebhooksDeps) {}

  /** Disables what has failed long enough now; returns the ids of the webhooks it disabled. */
  async disableDead(): Promise<string[]> {
    const now = this.deps.now();
    const days = this.deps.disableAfterDays;
    const result = await this.deps.knex.raw<{ rows: DisabledRow[] }>(DISABLE_SQL, {
      now,
      windowStart: new Date(now.getTime() - days * DAY_MS),
      spanSeconds: (days * DAY_MS) / 1000,
      reason: disabledReason(days),
    });
    for (const row of result.rows) this.audit(row, now);
    return result.rows.map((row) => row.id);
  }

  /** As the other webhook audit lines; only the URL's host is logged, since paths often embed tokens. */
  private audit(row: DisabledRow, disabledAt: Date): void {
    const event = 'audit.timetable.webhook.disabled';
    this.deps.logger.info(
      {
        event, developerId: row.developer_id, webhookId: row.id, urlHost: new URL(row.url).host, isActive: false,
        disabledReason: disabledReason(this.deps.disableAfterDays), disabledAt, failingSince: row.failing_since, lastFailureAt: row.last_failure_at,
      },
      event,
    );
  }
}

/** The `disabledReason` of a webhook the system disabled. */
export function disabledReason(days: number): string {
  return `Disabled by the system: every delivery attempt failed for ${days} ${days === 1 ? 'day' : 'days'}. ` +
    'Set isActive to true to enable it again.';
}
