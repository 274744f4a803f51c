import { eventually, sleep } from './eventually.js';
import type { SystemUnderFault } from './system-under-fault.js';

/**
 * A stream of upstream changes: the simulator is churned every few seconds while a fault is injected and
 * healed. Everything sync detects from a run that started at or after `since` belongs to the stream.
 */
export class ChangeStream {
  private static seed = 1_000;
  private lastChurnAt = 0;
  private churns = 0;
  /** The simulator's changes the churns applied (a churn of `count: 3` may apply fewer). */
  changesMade = 0;

  private constructor(
    private readonly system: SystemUnderFault,
    readonly since: Date,
  ) {}

  /**
   * Starts once a sync run that began after now has finished: every earlier run is over (sync runs one at
   * a time), so no change of the stream can land in a run that started before `since`.
   */
  static async begin(system: SystemUnderFault): Promise<ChangeStream> {
    const since = new Date();
    await eventually('a sync run after the stream began', async () => {
      const rows = await system.query('sync', 'select 1 from sync.sync_runs where started_at >= $1 limit 1', [since]);
      return rows.length > 0 ? true : undefined;
    });
    return new ChangeStream(system, since);
  }

  /** The churns made so far. */
  get churnCount(): number {
    return this.churns;
  }

  /** `count` churns, `everyMs` apart; a churn that fails (the simulator is fine, the request may not be) is retried. */
  async churn(count: number, everyMs = 2_500): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      ChangeStream.seed += 1;
      const seed = ChangeStream.seed;
      const applied = await eventually('a churn', async () => {
        const response = await fetch(`${this.system.upstreamBaseUrl}/__admin/churn`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ seed, count: 3 }),
        });
        if (!response.ok) return undefined;
        const { applied } = (await response.json()) as { applied: unknown[] };
        return applied.length;
      });
      this.changesMade += applied;
      this.lastChurnAt = Date.now();
      this.churns += 1;
      if (index < count - 1) await sleep(everyMs);
    }
  }

  /**
   * The number of changes sync published for the stream, once a run that started after the last churn has
   * finished and the outbox is empty: what the change log and the receiver must hold.
   */
  async published(): Promise<number> {
    const lastChurn = new Date(this.lastChurnAt);
    return eventually(
      'sync to publish the stream',
      async () => {
        const [after] = await this.system.query<{ n: number }>('sync', 'select count(*)::int as n from sync.sync_runs where started_at > $1', [lastChurn]);
        const [backlog] = await this.system.query<{ n: number }>('sync', 'select count(*)::int as n from sync.outbox');
        if (!after || after.n === 0 || !backlog || backlog.n > 0) return undefined;
        const [total] = await this.system.query<{ n: number }>(
          'sync',
          'select coalesce(sum(created_count + updated_count + deleted_count), 0)::int as n from sync.sync_runs where started_at >= $1',
          [this.since],
        );
        return total?.n;
      },
      300_000,
    );
  }
}
