import type { UsageEvent } from '@timetable/contracts';
import type { Knex } from '@timetable/db';

export interface EndpointCount {
  endpoint: string;
  _count: number;
}

export interface UsageStoreDeps {
  /** On the `developer_auth` schema. */
  knex: Knex;
}

const TABLE = 'usage_events';
/** Rows per delete statement, so a first run over a large backlog never holds long locks. */
const DELETE_BATCH = 5000;

/** The gateway's counted developer requests, kept for the usage report until retention deletes them. */
export class UsageStore {
  private readonly knex: Knex;

  constructor(deps: UsageStoreDeps) {
    this.knex = deps.knex;
  }

  /** Inserts events whose id is new; redelivered ones are ignored. */
  async record(events: UsageEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((event) => ({
      id: event.id,
      developer_id: event.developerId,
      endpoint: event.endpoint,
      status_code: event.statusCode,
      occurred_at: event.occurredAt,
    }));
    await this.knex(TABLE).insert(rows).onConflict('id').ignore();
  }

  /**
   * Requests of one developer with from <= occurredAt <= to: the total and the `top` busiest endpoints. One
   * statement, so both come from one snapshot: usage keeps arriving, and a total read apart from the counts
   * could disagree with them. The window sum runs before the LIMIT, so the total counts every endpoint.
   */
  async summarise(developerId: string, from: Date, to: Date, top: number): Promise<{ total: number; byEndpoint: EndpointCount[] }> {
    const rows = await this.knex(TABLE)
      .where('developer_id', developerId)
      .where('occurred_at', '>=', from)
      .where('occurred_at', '<=', to)
      .select('endpoint', this.knex.raw('count(*)::int as count'), this.knex.raw('(sum(count(*)) over ())::int as total'))
      .groupBy('endpoint')
      .orderBy([{ column: 'count', order: 'desc' }, { column: 'endpoint', order: 'asc' }])
      .limit(top) as { endpoint: string; count: number; total: number }[];
    return { total: rows[0]?.total ?? 0, byEndpoint: rows.map((row) => ({ endpoint: row.endpoint, _count: row.count })) };
  }

  /** Deletes events that occurred before `cutoff`; returns how many. */
  async deleteBefore(cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.knex(TABLE)
        .whereIn('id', this.knex(TABLE).select('id').where('occurred_at', '<', cutoff).limit(DELETE_BATCH))
        .del();
      total += deleted;
      if (deleted < DELETE_BATCH) return total;
    }
  }
}
