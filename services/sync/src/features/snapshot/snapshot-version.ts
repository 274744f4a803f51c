/**
 * The snapshot's version (table `snapshot_version`, one row): advanced by every run that writes changes, in its
 * transaction. A run reads it before the snapshot it diffs against, and its commit advances it only from that
 * value, so a run another committed behind cannot write changes against a snapshot that is no longer current.
 */
import type { Knex } from '@timetable/db';

export interface SnapshotVersionStoreDeps {
  /** On the `sync` schema. */
  knex: Knex;
}

export class SnapshotVersionStore {
  private readonly knex: Knex;

  constructor(deps: SnapshotVersionStoreDeps) {
    this.knex = deps.knex;
  }

  /** As a string: PostgreSQL's bigint, compared and written back as it was read. */
  async current(): Promise<string> {
    const row = await this.knex('snapshot_version').first<{ version: string } | undefined>('version');
    if (row === undefined) throw new Error('snapshot_version holds no row: the sync schema is not migrated');
    return String(row.version);
  }

  /**
   * Inside the run's transaction: moves the version on from `expected`, or answers false when another run has
   * moved it since. The row's lock makes a second run's commit wait for the first's and then find the version
   * it wrote, so of two runs that read the same version only one gets past this.
   */
  async advance(trx: Knex.Transaction, expected: string): Promise<boolean> {
    const updated = await trx('snapshot_version').where({ version: expected }).increment('version', 1);
    return updated === 1;
  }
}
