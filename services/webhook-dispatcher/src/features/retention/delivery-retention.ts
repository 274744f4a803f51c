import type { Knex } from '@timetable/db';

const DAY_MS = 86_400_000;
/** Rows per delete statement, so a first run over a large backlog never holds long locks. */
const BATCH = 5000;

export interface RetentionResult {
  deliveries: number;
  changes: number;
  webhooks: number;
}

export interface DeliveryRetentionDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** DELIVERY_RETENTION_DAYS */
  retentionDays: number;
  now: () => Date;
}

/**
 * Deletes finished deliveries created more than DELIVERY_RETENTION_DAYS ago, then what only they kept:
 * matched changes no delivery refers to any more, and deleted webhooks without deliveries. A pending
 * delivery is never deleted, however old.
 */
export class DeliveryRetention {
  private readonly knex: Knex;
  private readonly retentionDays: number;
  private readonly now: () => Date;

  constructor(deps: DeliveryRetentionDeps) {
    this.knex = deps.knex;
    this.retentionDays = deps.retentionDays;
    this.now = deps.now;
  }

  async runOnce(): Promise<RetentionResult> {
    const cutoff = new Date(this.now().getTime() - this.retentionDays * DAY_MS);
    const deliveries = await this.inBatches(() =>
      this.knex('deliveries')
        .whereIn('id', this.knex('deliveries').select('id').where('created_at', '<', cutoff).whereNot('status', 'pending').limit(BATCH))
        .del(),
    );
    const changes = await this.inBatches(() =>
      this.knex('matched_changes')
        .whereIn(
          'id',
          this.knex('matched_changes as m')
            .select('m.id')
            .where('m.created_at', '<', cutoff)
            .whereNotExists(this.knex('deliveries as d').whereRaw('d.change_id = m.id'))
            .limit(BATCH),
        )
        .del(),
    );
    const webhooks = await this.knex('webhooks as w')
      .where('w.deleted_at', '<', cutoff)
      .whereNotExists(this.knex('deliveries as d').whereRaw('d.webhook_id = w.id'))
      .del();
    return { deliveries, changes, webhooks };
  }

  private async inBatches(deleteBatch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (let deleted = await deleteBatch(); deleted > 0; deleted = await deleteBatch()) total += deleted;
    return total;
  }
}
