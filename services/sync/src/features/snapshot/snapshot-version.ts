/**
 * The snapshot's version (table `snapshot_version`, one row): advanced by every run that writes changes, in its
 * transaction. A run reads it with the last committed run (SyncRunStore.lastCommitted), and its commit
 * advances it only from that value, so a run another committed behind cannot write
 * changes against a snapshot that is no longer current (a run that changed nothing is fenced the same way, by
 * SyncRunStore.recordIfSnapshotAt).
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
