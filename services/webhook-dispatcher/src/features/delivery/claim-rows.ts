import { changeDataJson } from './delivery-body.js';
import type { ClaimedDelivery, ClaimRequest } from './delivery-lease.js';

/** A row of CLAIM_DUE_SQL: a leased delivery, with its change's content on the first row of each change. */
export interface ClaimRow {
  id: string;
  webhook_id: string;
  change_id: string | null;
  message_id: string;
  event_type: string;
  attempts: number;
  url: string;
  secret: string | null;
  developer_id: string;
  target_host: string;
  webhook_deleted: boolean;
  /** False for a test delivery, which has no change. */
  has_change: boolean;
  /** The change's content (its JSON columns as text): on one of the claim's rows per change only, null on the others. */
  entity_type: string | null;
  entity_id: string | null;
  action: string | null;
  changed_fields: string | null;
  previous_data: string | null;
  new_data: string | null;
}

/**
 * The deliveries a claim leased, from its rows. Deliveries of one change to several webhooks share one
 * serialisation of its content; `secretOf` gives a row's decrypted signing secret.
 */
export function claimedDeliveries(rows: ClaimRow[], request: ClaimRequest, secretOf: (row: ClaimRow) => string | null): ClaimedDelivery[] {
  const changes = changesOf(rows);
  return rows.map((row) => ({
    id: row.id,
    claimToken: request.claimToken,
    leaseUntil: request.leaseUntil,
    messageId: row.message_id,
    eventType: row.event_type,
    attempts: row.attempts,
    webhookId: row.webhook_id,
    url: row.url,
    host: row.target_host,
    developerId: row.developer_id,
    secret: secretOf(row),
    webhookDeleted: row.webhook_deleted,
    data: row.has_change && row.change_id !== null ? changes.get(row.change_id)! : null,
  }));
}

/** The `data` JSON of each change in a claim, from the one row per change that carries its content. */
function changesOf(rows: ClaimRow[]): Map<string, string> {
  const changes = new Map<string, string>();
  for (const row of rows) {
    if (row.change_id === null || row.entity_type === null) continue;
    changes.set(
      row.change_id,
      changeDataJson({
        entityType: row.entity_type,
        entityId: row.entity_id!,
        action: row.action!,
        changedFieldsJson: row.changed_fields!,
        previousJson: row.previous_data,
        currentJson: row.new_data,
      }),
    );
  }
  return changes;
}
